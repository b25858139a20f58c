import { describe, expect, it } from 'vitest';
import { formatReport, startupReport } from '../../../src/domain/journal/report.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';

let seq = 0;
const state = (t: number, value: unknown): JournalRecord => ({ seq: ++seq, t, wall: '', actor: 'supervisor', kind: 'derived', type: 'state', name: 'supervisor', source: null, payload: { value, status: 'active' } });
const input = (t: number, name: string, payload: unknown): JournalRecord => ({ seq: ++seq, t, wall: '', actor: 'supervisor', kind: 'input', type: 'event', name, source: null, payload });

describe('startupReport', () => {
  it('gives each phase its start offset, duration and outcome, and marks the dominant phases', () => {
    const r = startupReport([
      state(0, { command: 'parse' }),
      state(5, { command: 'debugServer' }),
      state(6, { command: 'featureGates' }),
      state(106, { run: 'lockFile' }),
      state(110, { runTail: 'sdNotify' }),
      state(111, 'running'),
    ]);
    const row = (p: string) => r.phases.find((x) => x.phase === p)!;
    expect(row('command.parse')).toMatchObject({ startMs: 0, durationMs: 5, outcome: 'ok' });
    expect(row('command.featureGates')).toMatchObject({ startMs: 6, durationMs: 100, outcome: 'ok' });
    expect(row('run.sdNotify')).toMatchObject({ startMs: 110, durationMs: 1, outcome: 'ok' });
    expect(row('run.oomScore').outcome).toBe('notReached');
    expect(r.runningAtMs).toBe(111);
    expect(r.criticalPath.totalMs).toBe(111);
    expect(r.criticalPath.dominant[0]).toMatchObject({ phase: 'command.featureGates', durationMs: 100 });
    expect(formatReport(r)).toMatch(/command\.featureGates\s+\+6ms\s+100ms\s+ok/);
  });

  it('names the failed phase with its error', () => {
    const r = startupReport([
      state(0, { command: 'parse' }),
      input(3, 'xstate.error.actor.command.parse', { error: { code: 'KLT_ERR_FLAG_UNKNOWN', message: 'unknown flag: --x' } }),
      state(3, 'failed'),
    ]);
    expect(r.phases[0]).toMatchObject({ outcome: 'failed', error: { code: 'KLT_ERR_FLAG_UNKNOWN', message: 'unknown flag: --x' } });
    expect(r.finalState).toBe('failed');
  });

  it('shows what a phase still in progress waits on', () => {
    const r = startupReport([
      state(0, { run: 'preInitRuntime' }),
      input(10, 'phase.waiting', { phase: 'run.preInitRuntime', reason: 'runtime socket absent' }),
      input(900, 'xstate.after.x', {}),
    ]);
    expect(r.phases.find((p) => p.phase === 'run.preInitRuntime')).toMatchObject({ outcome: 'inProgress', durationMs: 900, waitingOn: 'runtime socket absent' });
  });

  it('prints a failed phase\'s message with its control characters escaped, one line per row', () => {
    const r = startupReport([
      state(0, { run: 'preInitRuntime' }),
      input(3, 'xstate.error.actor.run.preInitRuntime', { error: { code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'runtime said \u001b[2J\u009b1m\nforged line' } }),
      state(3, 'failed'),
    ]);
    const text = formatReport(r);
    expect(text).toContain('KLT_ERR_CRI_UNAVAILABLE: runtime said \\x1b[2J\\x9b1m\\nforged line');
    expect(text).not.toMatch(/[\u001b\u009b]/);
    expect(text.split('\n').filter((l) => l.includes('forged line'))).toHaveLength(1);
    expect(r.phases.find((p) => p.phase === 'run.preInitRuntime')?.error?.message).toBe('runtime said \u001b[2J\u009b1m\nforged line');
  });
});
