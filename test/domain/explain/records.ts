/** Journal records for explain's tests: a pod, its worker's effects' answers, and any record by hand. */
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import type { PodHistory } from '../../../src/domain/explain/story.js';

export const UID = '11111111-2222-3333-4444-555555555555';

export function pod(name = 'web', namespace = 'default', uid = UID, extra: Record<string, unknown> = {}) {
  return { metadata: { name, namespace, uid }, spec: { containers: [{ name: 'main', image: 'busybox' }], ...extra } };
}

/** Builds records with increasing seq; `t` given per record. */
export class Records {
  private seq = 0;
  readonly all: JournalRecord[] = [];

  add(t: number, fields: Partial<JournalRecord> & Pick<JournalRecord, 'actor' | 'type' | 'name'>): JournalRecord {
    const record: JournalRecord = { seq: ++this.seq, t, wall: '', kind: 'derived', source: null, payload: {}, ...fields };
    this.all.push(record);
    return record;
  }

  /** The sync loop spawning the pod's worker: the pod admitted. */
  admitted(t: number, p = pod()) {
    return this.add(t, { actor: 'syncLoop', type: 'action', name: 'spawn', payload: { child: `pod:${p.metadata.uid}`, src: 'podWorker', input: { pod: p, assignment: {} } } });
  }

  /** The worker's syncPod answer. */
  syncDone(t: number, output: Record<string, unknown>, uid = UID) {
    return this.add(t, { actor: `pod:${uid}`, kind: 'input', type: 'event', name: 'xstate.done.actor.syncPod', source: `pod:${uid}/syncPod`, payload: { output: { podUid: uid, ...output }, actorId: 'syncPod' } });
  }

  history(uid = UID, name = 'web', namespace = 'default'): PodHistory {
    return { pod: { uid, name, namespace }, records: this.all };
  }
}
