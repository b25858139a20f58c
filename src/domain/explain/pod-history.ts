/**
 * Every record concerning one pod: its own actors' (`pod:<uid>`, its sync and kill effects, its
 * volumes `volume:<uid>:<name>`, its probes `probe:<uid>:…`, the status manager's patches named by
 * it), and any other record whose payload names it (a pod object with its uid, or a string holding
 * the uid: a `podUid` field, a child's id). Checkpoints are left out: they hold every pod at once
 * and tell no step of its life. Beside them, the node's labels and taints as admission saw them.
 */
import { isPodObject } from '../journal/pod-forms.js';
import type { JournalRecord } from '../journal/record.js';
import { isNodeViewRecord } from './node-view.js';
import type { PodHistory, PodIdentity } from './story.js';

export function podHistory(records: readonly JournalRecord[], pod: PodIdentity): PodHistory {
  const history = new PodHistoryCollector(pod);
  for (const record of records) history.add(record);
  return history.history;
}

/** A pod's history gathered one record at a time: a journal read as a stream keeps only these records. */
export class PodHistoryCollector {
  private readonly records: JournalRecord[] = [];
  private readonly node: JournalRecord[] = [];

  constructor(private readonly pod: PodIdentity) {}

  add(record: JournalRecord): void {
    if (record.type !== 'checkpoint' && (record.actor.includes(this.pod.uid) || mentions(record.payload, this.pod.uid))) this.records.push(record);
    if (isNodeViewRecord(record)) this.node.push(record);
  }

  get history(): PodHistory {
    return { pod: this.pod, records: this.records, node: this.node };
  }
}

/**
 * Whether a payload names the uid. A pod is told by its own uid, never walked into, so a pod shared
 * by many records costs one comparison each: no cache, whose weak table cost a long log more than
 * the walks it saved.
 */
function mentions(value: unknown, uid: string): boolean {
  if (typeof value === 'string') return value.includes(uid);
  if (typeof value !== 'object' || value === null) return false;
  if (isPodObject(value)) return (value as { metadata: { uid?: unknown } }).metadata.uid === uid;
  if (Array.isArray(value)) return value.some((item) => mentions(item, uid));
  for (const k in value) if (Object.hasOwn(value, k) && mentions((value as Record<string, unknown>)[k], uid)) return true;
  return false;
}
