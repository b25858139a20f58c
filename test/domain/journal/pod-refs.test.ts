import { describe, expect, it } from 'vitest';
import { PodCompactor, PodExpander } from '../../../src/domain/journal/pod-refs.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { SnapshotExpander } from '../../../src/domain/journal/snapshot-refs.js';

let seq = 0;
const record = (name: string, payload: unknown, actor = 'syncLoop'): JournalRecord => ({
  seq: ++seq, t: seq, wall: '', actor, kind: 'derived', type: 'action', name, source: null, payload,
});
const snapshot = (pods: unknown[]): JournalRecord => ({
  seq: ++seq, t: seq, wall: '', actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', source: 'podConfig/apiSource',
  payload: { source: 'api', pods, rejected: [], observedAtMs: seq },
});
const checkpoint = (): JournalRecord => ({ seq: ++seq, t: seq, wall: '', actor: 'supervisor', kind: 'derived', type: 'checkpoint', name: 'checkpoint', source: null, payload: { snapshot: {} } });
const pod = (name: string, rv = '1') => ({ metadata: { name, uid: `uid-${name}`, resourceVersion: rv }, spec: { containers: [{ name: 'c' }] } });

/** What the file holds, as the sink writes it (pod references) and the reader parses it. */
function throughFile(records: JournalRecord[]): JournalRecord[] {
  const pods = new PodCompactor();
  return records.map((r) => JSON.parse(JSON.stringify(pods.compact(r))) as JournalRecord);
}
function read(written: JournalRecord[]): JournalRecord[] {
  const [snapshots, pods] = [new SnapshotExpander(), new PodExpander()];
  return written.map((r) => snapshots.expand(pods.expand(r)));
}

describe('pod references', () => {
  it('writes a pod written before, in any record and at any depth, as where it was written whole, and reads it back whole', () => {
    const [a, b] = [pod('a'), pod('b')];
    const records = [
      record('send', { to: 'statusManager', event: { type: 'pod.config.updated', op: 'ADD', pods: [a, b] } }),
      record('spawn', { child: 'volume', input: { pod: a, volume: 'v' } }),
      record('send', { to: 'pod', event: { type: 'volumes.pod.sync', pod: b, again: b } }),
    ];
    const written = throughFile(records);
    expect(written[0]).toEqual(records[0]);
    const [first] = records;
    expect(written[1]!.payload).toEqual({ child: 'volume', input: { pod: { $pod: [first!.seq, 0] }, volume: 'v' } });
    expect(written[2]!.payload).toEqual({ to: 'pod', event: { type: 'volumes.pod.sync', pod: { $pod: [first!.seq, 1] }, again: { $pod: [first!.seq, 1] } } });
    expect(read(written)).toEqual(records);
  });

  it('writes whole a pod equal in content but not the same object, and any pod again after a checkpoint', () => {
    const a = pod('a');
    const written = throughFile([record('send', { pod: a }), record('send', { pod: pod('a') }), checkpoint(), record('send', { pod: a }), record('send', { pod: a })]);
    expect(written.map((r) => JSON.stringify(r.payload).includes('$pod'))).toEqual([false, false, false, false, true]);
  });

  it('writes a snapshot\'s pods sent before, by the source or anyone, as references: one scheme for every record', () => {
    const [a, b] = [pod('a'), pod('b')];
    const records = [snapshot([a]), record('send', { pod: b }), snapshot([a, b]), record('send', { pods: [a, b] })];
    const written = throughFile(records);
    const [first, second] = records;
    expect((written[2]!.payload as { pods: unknown[] }).pods).toEqual([{ $pod: [first!.seq, 0] }, { $pod: [second!.seq, 0] }]);
    expect(read(written)).toEqual(records);
  });

  it('reads a format 3 log, whose snapshots hold both kinds of reference, back whole', () => {
    const [a, b] = [pod('a'), pod('b')];
    const records = [snapshot([a]), record('send', { pod: b }), snapshot([a, b]), record('send', { pods: [a, b] })];
    const written = JSON.parse(JSON.stringify([
      records[0], records[1],
      { ...records[2], payload: { ...(records[2]!.payload as object), pods: [{ $prev: 0 }, { $pod: [records[1]!.seq, 0] }] } },
      { ...records[3], payload: { pods: [{ $pod: [records[0]!.seq, 0] }, { $pod: [records[1]!.seq, 0] }] } },
    ])) as JournalRecord[];
    expect(read(written)).toEqual(records);
  });

  it('refuses a reference to a record it has not read rather than put another pod there', () => {
    const a = pod('a');
    const written = throughFile([record('send', { pod: a }), record('send', { pod: a })]);
    expect(() => new PodExpander().expand(written[1]!)).toThrow(/refers to pod 0 of record \d+, which is not in the log/);
  });
});
