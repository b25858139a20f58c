/** The pod object as the log last held it before a record: what a decision at that record was made on. */
import { isPodObject } from '../journal/pod-forms.js';
import type { Pod } from '../pod/types.js';
import type { PodHistory } from './story.js';

export function podSpecAt(history: PodHistory, seq: number): Pod | undefined {
  let found: Pod | undefined;
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.forEach(visit);
    if (isPodObject(value)) {
      if ((value as Pod).metadata.uid === history.pod.uid) found = value as Pod;
      return;
    }
    for (const k in value) if (Object.hasOwn(value, k)) visit((value as Record<string, unknown>)[k]);
  };
  for (const record of history.records) {
    if (record.seq > seq) break;
    visit(record.payload);
  }
  return found;
}
