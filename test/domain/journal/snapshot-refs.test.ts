import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { SnapshotCompactor, SnapshotExpander } from '../../../src/domain/journal/snapshot-refs.js';

let seq = 0;
const snapshot = (pods: unknown[], source = 'api', actor = 'podConfig'): JournalRecord => ({
  seq: ++seq, t: seq, wall: '', actor, kind: 'input', type: 'event', name: 'pod.source.snapshot', source: `${actor}/${source}Source`,
  payload: { source, pods, rejected: [], observedAtMs: seq },
});
const checkpoint = (): JournalRecord => ({ seq: ++seq, t: seq, wall: '', actor: 'supervisor', kind: 'derived', type: 'checkpoint', name: 'checkpoint', source: null, payload: {} });
const pod = (name: string, rv = '1') => ({ metadata: { name, uid: `uid-${name}`, resourceVersion: rv }, spec: { containers: [{ name: 'c' }] } });
const podsOf = (r: JournalRecord) => (r.payload as { pods: unknown[] }).pods;

/** What the file holds: each record compacted, then through JSON, as the sink writes and the reader parses. */
function throughFile(records: JournalRecord[]): JournalRecord[] {
  const compactor = new SnapshotCompactor();
  return records.map((r) => JSON.parse(JSON.stringify(compactor.compact(r))) as JournalRecord);
}

describe('snapshot references', () => {
  it('writes the pods a source sent again (the same objects) as references, and reads them back whole', () => {
    const [a, b, c] = [pod('a'), pod('b'), pod('c')];
    const b2 = pod('b', '2');
    const records = [snapshot([a, b]), snapshot([a, b, c]), snapshot([a, b2, c]), snapshot([c])];
    const written = throughFile(records);
    expect(podsOf(written[0]!)).toEqual([a, b]);
    expect(podsOf(written[1]!)).toEqual([{ $prev: 0 }, { $prev: 1 }, c]);
    expect(podsOf(written[2]!)).toEqual([{ $prev: 0 }, b2, { $prev: 2 }]);
    expect(podsOf(written[3]!)).toEqual([{ $prev: 2 }]);
    const expander = new SnapshotExpander();
    expect(written.map((r) => expander.expand(r))).toEqual(records);
  });

  it('tells a pod equal in content but not the same object apart: written whole', () => {
    const written = throughFile([snapshot([pod('a')]), snapshot([pod('a')])]);
    expect(podsOf(written[1]!)).toEqual([pod('a')]);
  });

  it('keeps each actor\'s and source\'s snapshots apart', () => {
    const a = pod('a');
    const records = [snapshot([a], 'api'), snapshot([a], 'file'), snapshot([a], 'api'), snapshot([a], 'api', 'other')];
    const written = throughFile(records);
    expect(podsOf(written[1]!)).toEqual([a]);
    expect(podsOf(written[2]!)).toEqual([{ $prev: 0 }]);
    expect(podsOf(written[3]!)).toEqual([a]);
    const expander = new SnapshotExpander();
    expect(written.map((r) => expander.expand(r))).toEqual(records);
  });

  it('starts afresh at a checkpoint, so a log read from its first checkpoint on is whole', () => {
    const a = pod('a');
    const written = throughFile([snapshot([a]), checkpoint(), snapshot([a]), snapshot([a])]);
    expect(podsOf(written[2]!)).toEqual([a]);
    expect(podsOf(written[3]!)).toEqual([{ $prev: 0 }]);
    const expander = new SnapshotExpander();
    const [, afterCheckpoint, next] = written.slice(1).map((r) => expander.expand(r));
    expect([podsOf(afterCheckpoint!), podsOf(next!)]).toEqual([[a], [a]]);
  });

  it('refuses a reference to a snapshot it never read, and what refers to that one too, instead of reading it wrong', () => {
    const [a, b] = [pod('a'), pod('b')];
    const written = throughFile([snapshot([a, b]), snapshot([a, b]), snapshot([b]), snapshot([pod('c')]), snapshot([pod('c')])]);
    const expander = new SnapshotExpander();
    expect(() => expander.expand(written[1]!)).toThrow(/refers to pod 0 of a snapshot that is not in the log/);
    expect(() => expander.expand(written[2]!)).toThrow(/not in the log/);
    expect(podsOf(expander.expand(written[3]!))).toEqual([pod('c')]);
  });

  it('leaves every other record as it is, the very object', () => {
    const compactor = new SnapshotCompactor();
    const expander = new SnapshotExpander();
    const other: JournalRecord = { ...snapshot([pod('a')]), name: 'api.mirrorPods.observed' };
    compactor.compact(other);
    expect(compactor.compact(other)).toBe(other);
    expect(expander.expand(other)).toBe(other);
  });
});
