/**
 * How the journal file keeps a pod source's snapshots small (format version 2).
 *
 * A pod source hands the pod config every pod it knows on each change (Go's apiserver source sends
 * the whole set on every watch event), so in a burst of pods each `pod.source.snapshot` input
 * repeats every pod it already held, most of a burst's log (docs/FINDINGS.md). The source hands an
 * unchanged pod on as the very object it sent before, so the writer can tell it by identity,
 * without comparing: such a pod is written `{"$prev": i}`, the i-th pod of the same source's
 * previous snapshot. The reader puts the pod back, so replay, report and the visualizer see every
 * record whole.
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

/** The writer's side: what each source sent last, by identity. */
export class SnapshotCompactor {
  private readonly previous = new Map<string, Map<unknown, number>>();

  compact(record: JournalRecord): JournalRecord {
    const found = sourceSnapshot(record, this.previous);
    if (!found) return record;
    const { snapshot, key } = found;
    const before = this.previous.get(key);
    this.previous.set(key, new Map(snapshot.pods.map((pod, i) => [pod, i])));
    if (!before) return record;
    return withPods(record, snapshot, mapChanged(snapshot.pods, (pod) => {
      const at = typeof pod === 'object' && pod !== null ? before.get(pod) : undefined;
      return at === undefined ? pod : { $prev: at };
    }));
  }
}

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
