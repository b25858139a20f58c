import { describe, expect, it } from 'vitest';
import { OutputsCompactor, OutputsExpander } from '../../../src/domain/journal/outputs-refs.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';

let seq = 0;
const spawn = (phase: string, outputs: Record<string, unknown>, actor = 'supervisor'): JournalRecord => ({
  seq: ++seq, t: seq, wall: '', actor, kind: 'derived', type: 'action', name: 'spawn', source: null,
  payload: { child: `${actor}/${phase}`, src: phase, input: { phase, outputs } },
});
const checkpoint = (): JournalRecord => ({ seq: ++seq, t: seq, wall: '', actor: 'supervisor', kind: 'derived', type: 'checkpoint', name: 'checkpoint', source: null, payload: { snapshot: {} } });
const outputsOf = (r: JournalRecord) => (r.payload as { input: { outputs: Record<string, unknown> } }).input.outputs;

/** What the file holds, as the sink writes it and the reader parses it. */
function throughFile(records: JournalRecord[]): JournalRecord[] {
  const compactor = new OutputsCompactor();
  return records.map((r) => JSON.parse(JSON.stringify(compactor.compact(r))) as JournalRecord);
}
function read(written: JournalRecord[]): JournalRecord[] {
  const expander = new OutputsExpander();
  return written.map((r) => expander.expand(r));
}

describe('phase output references', () => {
  it('writes an output an earlier spawn carried as where it was written whole, and reads every spawn back whole', () => {
    const gates = { gates: { A: true, B: false } };
    const config = { config: { port: 10250 } };
    const records = [
      spawn('parse', {}),
      spawn('featureGates', { parse: null, gates: gates }),
      spawn('loadConfig', { parse: null, gates: gates, config }),
      spawn('run', { parse: null, gates: gates, config, done: true }),
    ];
    const written = throughFile(records);
    const [, second, third] = records;
    expect(outputsOf(written[1]!)).toEqual({ parse: null, gates });
    expect(outputsOf(written[2]!)).toEqual({ parse: null, gates: { $out: second!.seq }, config });
    expect(outputsOf(written[3]!)).toEqual({ parse: null, gates: { $out: second!.seq }, config: { $out: third!.seq }, done: true });
    expect(read(written)).toEqual(records);
  });

  it('refers to an equal output too (a copy), and writes whole one that changed', () => {
    const records = [spawn('a', { x: { n: 1 } }), spawn('b', { x: { n: 1 } }), spawn('c', { x: { n: 2 } }), spawn('d', { x: { n: 2 } })];
    const written = throughFile(records);
    expect(written.map((r) => outputsOf(r).x)).toEqual([{ n: 1 }, { $out: records[0]!.seq }, { n: 2 }, { $out: records[2]!.seq }]);
    expect(read(written)).toEqual(records);
  });

  it('keeps each actor\'s spawns apart, and starts afresh at a checkpoint', () => {
    const x = { n: 1 };
    const records = [spawn('a', { x }), spawn('a', { x }, 'other'), checkpoint(), spawn('b', { x }), spawn('c', { x })];
    const written = throughFile(records);
    expect(written.map((r) => (r.type === 'checkpoint' ? 'checkpoint' : outputsOf(r).x))).toEqual([x, x, 'checkpoint', x, { $out: records[3]!.seq }]);
    expect(read(written)).toEqual(records);
  });

  it('refuses a reference to a record it has not read rather than put another output there', () => {
    const x = { n: 1 };
    const written = throughFile([spawn('a', { x }), spawn('b', { x })]);
    expect(() => new OutputsExpander().expand(written[1]!)).toThrow(/the output of x refers to record \d+, which is not in the log/);
  });

  it('leaves every other record as it is, the very object', () => {
    const compactor = new OutputsCompactor();
    const expander = new OutputsExpander();
    const x = { n: 1 };
    compactor.compact(spawn('a', { x }));
    const send: JournalRecord = { ...spawn('b', { x }), name: 'send' };
    expect(compactor.compact(send)).toBe(send);
    expect(expander.expand(send)).toBe(send);
    const first = spawn('c', { y: { n: 2 } });
    expect(compactor.compact(first)).toBe(first);
  });
});
