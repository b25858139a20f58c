import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { SnapshotExpander } from '../../../src/domain/journal/snapshot-refs.js';

let seq = 0;
const snapshot = (pods: unknown[], source = 'api', actor = 'podConfig'): JournalRecord => ({
  seq: ++seq, t: seq, wall: '', actor, kind: 'input', type: 'event', name: 'pod.source.snapshot', source: `${actor}/${source}Source`,
  payload: { source, pods, rejected: [], observedAtMs: seq },
});
const checkpoint = (): JournalRecord => ({ seq: ++seq, t: seq, wall: '', actor: 'supervisor', kind: 'derived', type: 'checkpoint', name: 'checkpoint', source: null, payload: {} });
const pod = (name: string, rv = '1') => ({ metadata: { name, uid: `uid-${name}`, resourceVersion: rv }, spec: { containers: [{ name: 'c' }] } });
const podsOf = (r: JournalRecord) => (r.payload as { pods: unknown[] }).pods;

/** The same snapshot as a format 2 or 3 file held it: `pods` as written, references included, through JSON. */
const asWritten = (record: JournalRecord, pods: unknown[]): JournalRecord =>
  JSON.parse(JSON.stringify({ ...record, payload: { ...(record.payload as object), pods } })) as JournalRecord;

describe('snapshot references (format 2 and 3 logs)', () => {
  it('reads the pods a source sent again, written as references, back whole', () => {
    const [a, b, c] = [pod('a'), pod('b'), pod('c')];
    const b2 = pod('b', '2');
    const records = [snapshot([a, b]), snapshot([a, b, c]), snapshot([a, b2, c]), snapshot([c])];
    const written = [
      asWritten(records[0]!, [a, b]),
      asWritten(records[1]!, [{ $prev: 0 }, { $prev: 1 }, c]),
      asWritten(records[2]!, [{ $prev: 0 }, b2, { $prev: 2 }]),
      asWritten(records[3]!, [{ $prev: 2 }]),
    ];
    const expander = new SnapshotExpander();
    expect(written.map((r) => expander.expand(r))).toEqual(records);
  });

  it('keeps each actor\'s and source\'s snapshots apart', () => {
    const [a, b] = [pod('a'), pod('b')];
    const records = [snapshot([a], 'api'), snapshot([b], 'file'), snapshot([a], 'api'), snapshot([b], 'api', 'other')];
    const written = [asWritten(records[0]!, [a]), asWritten(records[1]!, [b]), asWritten(records[2]!, [{ $prev: 0 }]), asWritten(records[3]!, [b])];
    const expander = new SnapshotExpander();
    expect(written.map((r) => expander.expand(r))).toEqual(records);
    // `other` has no earlier snapshot of its own: a reference there is not read from podConfig's.
    expect(() => expander.expand(asWritten(snapshot([a], 'file', 'other'), [{ $prev: 0 }]))).toThrow(/not in the log/);
  });

  it('starts afresh at a checkpoint, so a log read from its first checkpoint on is whole', () => {
    const a = pod('a');
    const records = [snapshot([a]), checkpoint(), snapshot([a]), snapshot([a])];
    const written = [asWritten(records[0]!, [a]), records[1]!, asWritten(records[2]!, [a]), asWritten(records[3]!, [{ $prev: 0 }])];
    const expander = new SnapshotExpander();
    const [, afterCheckpoint, next] = written.slice(1).map((r) => expander.expand(r));
    expect([podsOf(afterCheckpoint!), podsOf(next!)]).toEqual([[a], [a]]);
    expect(() => new SnapshotExpander().expand(written[0]!)).not.toThrow();
    const fresh = new SnapshotExpander();
    fresh.expand(written[0]!);
    fresh.expand(written[1]!);
    expect(() => fresh.expand(asWritten(snapshot([a]), [{ $prev: 0 }]))).toThrow(/not in the log/);
  });

  it('refuses a reference to a snapshot it never read, and what refers to that one too, instead of reading it wrong', () => {
    const [a, b] = [pod('a'), pod('b')];
    const written = [
      asWritten(snapshot([a, b]), [{ $prev: 0 }, { $prev: 1 }]),
      asWritten(snapshot([b]), [{ $prev: 1 }]),
      asWritten(snapshot([pod('c')]), [pod('c')]),
    ];
    const expander = new SnapshotExpander();
    expect(() => expander.expand(written[0]!)).toThrow(/refers to pod 0 of a snapshot that is not in the log/);
    expect(() => expander.expand(written[1]!)).toThrow(/not in the log/);
    expect(podsOf(expander.expand(written[2]!))).toEqual([pod('c')]);
  });

  it('leaves every other record as it is, the very object', () => {
    const expander = new SnapshotExpander();
    const other: JournalRecord = { ...snapshot([pod('a')]), name: 'api.mirrorPods.observed' };
    expect(expander.expand(other)).toBe(other);
  });
});
