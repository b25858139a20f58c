/**
 * How logs of format versions 2 and 3 kept a pod source's snapshots small, read back.
 *
 * A pod source hands the pod config every pod it knows on each change, so each `pod.source.snapshot`
 * repeats every pod it already held. Those writers wrote such a pod `{"$prev": i}`, the i-th pod of
 * the same source's previous snapshot. Today's writer leaves this to pod references (pod-refs.ts),
 * one walk of each record instead of two; the reader still puts `$prev` pods back, so older logs and
 * fixtures replay, report and show whole.
 * A checkpoint starts afresh: no reference reaches back past one, so a log whose first segments
 * were rotated away still reads from its first checkpoint on.
 */
import type { JournalRecord } from './record.js';

const SNAPSHOT = 'pod.source.snapshot';

interface SnapshotPayload {
  source?: unknown;
  pods: unknown[];
}

function snapshotOf(record: JournalRecord): SnapshotPayload | undefined {
  if (record.kind !== 'input' || record.name !== SNAPSHOT) return undefined;
  const payload = record.payload as Partial<SnapshotPayload> | null;
  return payload && Array.isArray(payload.pods) ? (payload as SnapshotPayload) : undefined;
}

/** The snapshot a record carries and its source's key (after a checkpoint's fresh start); undefined for any other record. */
function sourceSnapshot(record: JournalRecord, previous: Map<string, unknown>): { snapshot: SnapshotPayload; key: string } | undefined {
  if (record.type === 'checkpoint') previous.clear();
  const snapshot = snapshotOf(record);
  return snapshot ? { snapshot, key: `${record.actor}\u0000${String(snapshot.source)}` } : undefined;
}

/** `items` mapped by `fn`; the very array when `fn` changed none of them. */
function mapChanged(items: unknown[], fn: (item: unknown, index: number) => unknown): unknown[] {
  let out: unknown[] | null = null;
  items.forEach((item, i) => {
    const mapped = fn(item, i);
    if (mapped !== item) out ??= items.slice(0, i);
    out?.push(mapped);
  });
  return out ?? items;
}

const withPods = (record: JournalRecord, snapshot: SnapshotPayload, pods: unknown[]): JournalRecord =>
  pods === snapshot.pods ? record : { ...record, payload: { ...snapshot, pods } };

/** The reader's side: each source's last snapshot, whole, to put referenced pods back from. */
export class SnapshotExpander {
  private readonly previous = new Map<string, unknown[]>();

  /** The record whole; throws when it refers to a snapshot this reader has not seen (a segment rotated away). */
  expand(record: JournalRecord): JournalRecord {
    const found = sourceSnapshot(record, this.previous);
    if (!found) return record;
    const { snapshot, key } = found;
    const before = this.previous.get(key);
    const pods = mapChanged(snapshot.pods, (pod, i) => {
      const at = referenceOf(pod);
      if (at === undefined) return pod;
      if (!before || at >= before.length) {
        // What follows refers to this snapshot: it cannot be read either, rather than read wrong.
        this.previous.delete(key);
        throw new Error(`pod ${i} refers to pod ${at} of a snapshot that is not in the log`);
      }
      return before[at];
    });
    this.previous.set(key, pods);
    return withPods(record, snapshot, pods);
  }
}

function referenceOf(pod: unknown): number | undefined {
  if (typeof pod !== 'object' || pod === null) return undefined;
  const keys = Object.keys(pod);
  const at = (pod as { $prev?: unknown }).$prev;
  return keys.length === 1 && Number.isInteger(at) && (at as number) >= 0 ? (at as number) : undefined;
}
