/**
 * Volumes: which volumes the pod's worker waited on and why — each failed set-up as Go's FailedMount
 * event says it (a ConfigMap or Secret missing, a driver not registered…), a volume that could not be
 * processed (a claim not bound), the wait running out — then the volumes mounted once the wait ended.
 * A wait that ended with nothing failing is told in one line; one that is still on when the log ends
 * says so.
 */
import { isPlainObject } from '../../config/decode.js';
import type { JournalRecord } from '../../journal/record.js';
import type { FamilyExplainer, StoryLine } from '../story.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

interface Wait { first: JournalRecord; volumes: string[]; troubled: boolean }

export const volumesFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  const line = (record: JournalRecord, text: string, cites = [record.seq]): StoryLine => ({ t: record.t, family: 'volumes', text, cites });
  const worker = `pod:${history.pod.uid}`;
  let wait: Wait | null = null;
  const failed = (record: JournalRecord, text: string) => {
    if (wait && !wait.troubled) {
      wait.troubled = true;
      lines.push(line(wait.first, `waiting for volumes: ${wait.volumes.join(', ')}`));
    }
    lines.push(line(record, text));
  };
  for (const record of history.records) {
    const payload = isPlainObject(record.payload) ? record.payload : {};
    if (record.actor === worker && record.type === 'event' && record.name === 'pod.volumes.changed') {
      const unmounted = strings(payload.unmounted);
      if (unmounted.length > 0 && !wait) wait = { first: record, volumes: unmounted, troubled: false };
      for (const f of Array.isArray(payload.failedToProcess) ? payload.failedToProcess.filter(isPlainObject) : []) {
        failed(record, `volume ${String(f.volumeName)} cannot be processed: ${String(f.message)}`);
      }
      if (unmounted.length === 0 && wait) {
        lines.push(line(record, `volumes mounted: ${wait.volumes.join(', ')}`, [wait.first.seq, record.seq]));
        wait = null;
      }
    } else if (record.actor === 'volumeManager' && record.type === 'action' && record.name === 'emit' && isPlainObject(payload.event)) {
      const event = payload.event;
      if (!isPlainObject(event.pod) || event.pod.uid !== history.pod.uid) continue;
      if (event.type === 'volume.mount.failed') {
        const text = typeof event.eventText === 'string' ? event.eventText : `MountVolume.SetUp failed for volume "${String(event.volumeName)}" : ${String(event.message)}`;
        failed(record, `FailedMount: ${text}`);
      } else if (event.type === 'volume.wait.timedOut') {
        failed(record, `FailedMount: ${String(event.message)}`);
        wait = null;
      }
    }
  }
  if (wait) lines.push(line(wait.first, `waiting for volumes: ${wait.volumes.join(', ')} (still waiting when the log ends)`));
  return lines;
};
