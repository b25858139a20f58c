/**
 * How the journal file writes a pod it has written before (format version 3): by reference.
 *
 * Besides the sources' snapshots (snapshot-refs.ts), one pod object reaches the journal in many
 * records: every machine that passes it on sends it (a pod config update goes from the pod config
 * to the sync loop and on to the status manager), every volume actor's spawn and remount carries
 * it. Written whole each time, the repeats would be much of a pod burst's log, and writing them much
 * of the journal's cost. Pod objects are never changed in place (pod-forms.ts),
 * so the writer tells a pod written before by identity: it is written `{"$pod": [seq, k]}`, the k-th
 * pod written whole in record `seq`. The reader puts the very pod back, so replay, report and the
 * visualizer see every record whole; a reference to a record it has not read (its segment rotated
 * away) makes that record unreadable rather than read wrong.
 * A checkpoint starts afresh on both sides: no reference reaches back past one, and the reader keeps
 * no more pods than the records since the last checkpoint hold.
 */
import { copyUntil } from './copy-on-write.js';
import { isPodObject } from './pod-forms.js';
import type { JournalRecord } from './record.js';

type Ref = [seq: number, k: number];

/** `value` walked by `fn` on every pod found in it, in the order JSON writes and reads them; the very value when nothing changed. */
function mapPods(value: unknown, fn: (pod: object) => unknown, isRef: (o: object) => boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const mapped = mapPods(value[i], fn, isRef);
      if (mapped !== value[i] && out === null) out = value.slice(0, i);
      out?.push(mapped);
    }
    return out ?? value;
  }
  if (isPodObject(value) || isRef(value)) return fn(value);
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  // for-in: no array of keys per object (payload.ts).
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    const mapped = mapPods(v, fn, isRef);
    if (mapped !== v && out === null) out = copyUntil(obj, k);
    if (out !== null) out[k] = mapped;
  }
  return out ?? value;
}

const withPayload = (record: JournalRecord, payload: unknown): JournalRecord => (payload === record.payload ? record : { ...record, payload });

const never = () => false;

/** The writer's side: where each pod written since the last checkpoint was written whole. */
export class PodCompactor {
  private written = new WeakMap<object, Ref>();

  compact(record: JournalRecord): JournalRecord {
    if (record.type === 'checkpoint') {
      this.written = new WeakMap();
      return record;
    }
    let k = 0;
    return withPayload(record, mapPods(record.payload, (pod) => {
      const at = this.written.get(pod);
      if (at) return { $pod: at };
      this.written.set(pod, [record.seq, k++]);
      return pod;
    }, never));
  }
}

/** The reader's side: the pods written whole since the last checkpoint, to put referenced ones back. */
export class PodExpander {
  private pods = new Map<string, object>();

  /** The record whole; throws when it refers to a record this reader has not read (a segment rotated away). */
  expand(record: JournalRecord): JournalRecord {
    if (record.type === 'checkpoint') {
      this.pods.clear();
      return record;
    }
    let k = 0;
    return withPayload(record, mapPods(record.payload, (found) => {
      const ref = referenceOf(found);
      if (ref === undefined) {
        this.pods.set(`${record.seq}:${k++}`, found);
        return found;
      }
      const pod = this.pods.get(`${ref[0]}:${ref[1]}`);
      if (pod === undefined) throw new Error(`a pod refers to pod ${ref[1]} of record ${ref[0]}, which is not in the log`);
      return pod;
    }, (o) => referenceOf(o) !== undefined));
  }
}

function referenceOf(value: object): Ref | undefined {
  const ref = (value as { $pod?: unknown }).$pod;
  if (!Array.isArray(ref) || Object.keys(value).length !== 1) return undefined;
  const [seq, k] = ref as unknown[];
  return ref.length === 2 && Number.isInteger(seq) && Number.isInteger(k) ? [seq as number, k as number] : undefined;
}
