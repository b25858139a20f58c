import { describe, expect, it } from 'vitest';
import type { ComparedStartup } from '../../../src/domain/journal/report-compare.js';
import { startupReport } from '../../../src/domain/journal/report.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { fastestOf } from '../../../src/domain/journal/startup-fastest.js';
import { readyMarks } from '../../../src/domain/journal/startup-ready.js';

let seq = 0;
const rec = (t: number, actor: string, type: JournalRecord['type'], name: string, payload: unknown): JournalRecord =>
  ({ seq: ++seq, t, wall: '', actor, kind: type === 'event' ? 'input' : 'derived', type, name, source: null, payload });
const state = (t: number, value: unknown) => rec(t, 'supervisor', 'state', 'supervisor', { value, status: 'active' });

/** parse `parse` ms, then preInitRuntime `runtime` ms, then running and the sync loop syncing. */
function startup(parse: number, runtime: number, opts: { fail?: boolean } = {}): ComparedStartup {
  const end = parse + runtime;
  const records = opts.fail
    ? [state(0, { command: 'parse' }), state(parse, { run: 'preInitRuntime' }), rec(end, 'supervisor', 'event', 'xstate.error.actor.run.preInitRuntime', { error: { code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'no runtime' } }), state(end, 'failed')]
    : [state(0, { command: 'parse' }), state(parse, { run: 'preInitRuntime' }), state(end, 'running'), rec(end + 5, 'syncLoop', 'state', 'syncLoop', { value: 'syncing', status: 'active' })];
  return { report: startupReport(records), ready: readyMarks(records) };
}

describe('fastestOf', () => {
  it('takes each phase at its shortest and Ready at its earliest, whichever run they come from', () => {
    const f = fastestOf([startup(10, 300), startup(40, 90), startup(25, 200)]);
    const ms = (phase: string) => f.report.phases.find((p) => p.phase === phase)!.durationMs;
    expect(ms('command.parse')).toBe(10);
    expect(ms('run.preInitRuntime')).toBe(90);
    expect(f.ready).toEqual({ syncLoopSyncing: 135 });
    expect(f.report.runningAtMs).toBe(130);
    expect(f.report.criticalPath.totalMs).toBe(100);
  });

  it('keeps a failure, and a start-up that did not reach running, of any run', () => {
    const f = fastestOf([startup(10, 90), startup(10, 50, { fail: true })]);
    expect(f.report.phases.find((p) => p.phase === 'run.preInitRuntime')!.outcome).toBe('failed');
    expect(f.report.runningAtMs).toBeNull();
    expect(f.report.finalState).toBe('failed');
    expect(f.ready).toEqual({});
  });

  it('gives one start-up back as it is', () => {
    const one = startup(10, 90);
    expect(fastestOf([one])).toBe(one);
  });
});
