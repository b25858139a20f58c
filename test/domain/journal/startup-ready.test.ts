import { describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/adapters/journal-file/reader.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { readyMarks } from '../../../src/domain/journal/startup-ready.js';

let seq = 0;
const rec = (t: number, actor: string, type: JournalRecord['type'], name: string, payload: unknown): JournalRecord =>
  ({ seq: ++seq, t, wall: '', actor, kind: 'input', type, name, source: null, payload });
const answer = (t: number, name: string, output: unknown) => rec(t, 'nodeStatus', 'event', name, { output });
const node = (ready: string) => ({ status: { conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: ready }] } });

describe('readyMarks', () => {
  it('marks Node Ready at the first accepted Node status with Ready=True, from registration or a status patch', () => {
    expect(readyMarks([
      answer(10, 'xstate.done.actor.registerNode', { ok: true, value: node('False') }),
      answer(20, 'xstate.done.actor.patchNodeStatus', { ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE' } }),
      answer(30, 'xstate.done.actor.getNode', { ok: true, value: node('True') }),
      answer(40, 'xstate.done.actor.patchNodeStatus', { ok: true, value: node('True') }),
      answer(50, 'xstate.done.actor.patchNodeStatus', { ok: true, value: node('True') }),
    ])).toEqual({ nodeReady: 40 });
    expect(readyMarks([answer(7, 'xstate.done.actor.registerNode', { ok: true, value: node('True') })])).toEqual({ nodeReady: 7 });
  });

  it("marks the sync loop's first syncing state, not its waiting for sources", () => {
    const state = (t: number, value: string) => rec(t, 'syncLoop', 'state', 'syncLoop', { value, status: 'active' });
    expect(readyMarks([state(5, 'waitingForSources'), state(9, 'syncing'), state(12, 'syncing')])).toEqual({ syncLoopSyncing: 9 });
  });

  it('finds both marks in the recorded cluster-mode log, and neither Node mark in the standalone one', () => {
    const cluster = readyMarks(readJournal('test/fixtures/eventlogs/cluster-embedded.jsonl').records);
    expect(cluster.nodeReady).toBeGreaterThan(0);
    expect(cluster.syncLoopSyncing).toBeGreaterThan(0);
    const standalone = readyMarks(readJournal('test/fixtures/eventlogs/standalone-embedded.jsonl').records);
    expect(standalone.nodeReady).toBeUndefined();
    expect(standalone.syncLoopSyncing).toBeGreaterThan(0);
  });
});
