import { describe, expect, it } from 'vitest';
import { compareStartups, exceeds, type ComparedStartup } from '../../../src/domain/journal/report-compare.js';
import { formatComparison } from '../../../src/domain/journal/report-compare-format.js';
import { startupReport } from '../../../src/domain/journal/report.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';
import { readyMarks } from '../../../src/domain/journal/startup-ready.js';

let seq = 0;
const rec = (t: number, actor: string, type: JournalRecord['type'], name: string, payload: unknown): JournalRecord =>
  ({ seq: ++seq, t, wall: '', actor, kind: type === 'event' ? 'input' : 'derived', type, name, source: null, payload });
const state = (t: number, value: unknown) => rec(t, 'supervisor', 'state', 'supervisor', { value, status: 'active' });
const syncing = (t: number) => rec(t, 'syncLoop', 'state', 'syncLoop', { value: 'syncing', status: 'active' });
const nodeAnswer = (t: number, ready: 'True' | 'False') =>
  rec(t, 'nodeStatus', 'event', 'xstate.done.actor.patchNodeStatus', { output: { ok: true, value: { status: { conditions: [{ type: 'Ready', status: ready }] } } } });

/** A start-up: parse 5 ms, featureGates `gates` ms, preInitRuntime `runtime` ms, then running; the sync loop syncs 10 ms later. */
function startup(opts: { gates?: number; runtime?: number; extra?: JournalRecord[]; failRuntime?: boolean } = {}): JournalRecord[] {
  const gates = opts.gates ?? 2;
  const runtime = opts.runtime ?? 80;
  const atRuntime = 5 + gates;
  const end = atRuntime + runtime;
  if (opts.failRuntime) {
    return [state(0, { command: 'parse' }), state(5, { command: 'featureGates' }), state(atRuntime, { run: 'preInitRuntime' }),
      rec(end, 'supervisor', 'event', 'xstate.error.actor.run.preInitRuntime', { error: { code: 'KLT_ERR_CRI_UNAVAILABLE', message: 'no runtime' } }), state(end, 'failed')];
  }
  return [
    state(0, { command: 'parse' }), state(5, { command: 'featureGates' }), state(atRuntime, { run: 'preInitRuntime' }),
    state(end, { runTail: 'sdNotify' }), state(end + 1, 'running'), syncing(end + 10), ...(opts.extra ?? []),
  ];
}

const of = (records: JournalRecord[]): ComparedStartup => ({ report: startupReport(records), ready: readyMarks(records) });
const T = { maxRatio: 1.5, maxAddedMs: 350, maxReadyAddedMs: 1000 };

describe('exceeds', () => {
  it.each([
    [1, 3, false], // three times as long, but 2 ms: noise
    [80, 430, false], // 350 ms more: not more than 350
    [80, 431, true],
    [2000, 2400, false], // 400 ms more, but only 1.2×
    [2000, 3001, true],
    [0, 351, true], // a phase the baseline did not run
  ])('judges %i ms → %i ms against both thresholds: %s', (base, cur, want) => {
    expect(exceeds(base, cur, T)).toBe(want);
  });
});

describe('compareStartups', () => {
  it('passes two start-ups within the thresholds, and puts both sides of each phase side by side', () => {
    const c = compareStartups(of(startup()), of(startup({ gates: 6, runtime: 120 })), T);
    expect(c.regressions).toEqual([]);
    const runtime = c.phases.find((p) => p.phase === 'run.preInitRuntime')!;
    expect(runtime).toMatchObject({ baseline: { startMs: 7, durationMs: 80 }, current: { startMs: 11, durationMs: 120 }, addedMs: 40, ratio: 1.5, verdict: 'ok' });
    expect(c.phases.find((p) => p.phase === 'run.oomScore')!.verdict).toBe('notReached');
    expect(c.ready).toMatchObject({ marker: 'syncLoopSyncing', baselineMs: 97, currentMs: 141, verdict: 'ok' });
    expect(c.criticalPath.baseline.dominant[0]).toEqual({ phase: 'run.preInitRuntime', durationMs: 80 });
    expect(formatComparison(c)).toMatch(/compare: ok$/);
  });

  it('names the phase that took 500 ms longer; the time to Ready it delayed stays within its own allowance', () => {
    const c = compareStartups(of(startup()), of(startup({ runtime: 580 })), T);
    expect(c.phases.find((p) => p.phase === 'run.preInitRuntime')).toMatchObject({ verdict: 'regressed', addedMs: 500, regression: true });
    expect(c.phases.filter((p) => p.regression).map((p) => p.phase)).toEqual(['run.preInitRuntime']);
    expect(c.regressions).toEqual(['run.preInitRuntime: 80ms → 580ms (+500ms, ×7.3)']);
    expect(c.ready).toMatchObject({ verdict: 'ok', addedMs: 500 });
    const text = formatComparison(c);
    expect(text).toMatch(/run\.preInitRuntime\s+\+7ms\s+80ms\s+\+7ms\s+580ms\s+\+500ms\s+×7\.25\s+REGRESSED/);
    expect(text).toContain('compare: regressed: run.preInitRuntime: 80ms → 580ms');
  });

  it('lets a tiny phase triple without failing', () => {
    expect(compareStartups(of(startup({ gates: 1 })), of(startup({ gates: 3 })), T).regressions).toEqual([]);
  });

  it('judges the time to Ready by Node Ready when both logs have it, not by the sync loop', () => {
    const base = startup({ extra: [nodeAnswer(150, 'False'), nodeAnswer(200, 'True')] });
    const slowNode = startup({ extra: [nodeAnswer(1300, 'True')] });
    const c = compareStartups(of(base), of(slowNode), T);
    expect(c.ready).toMatchObject({ marker: 'nodeReady', baselineMs: 200, currentMs: 1300, verdict: 'regressed' });
    expect(c.regressions).toEqual(['time to Ready (Node Ready): +200ms → +1300ms (+1100ms)']);
    expect(compareStartups(of(base), of(startup({ extra: [nodeAnswer(1200, 'True')] })), T).ready.verdict).toBe('ok');
  });

  it('falls back to the sync loop when only one log is in cluster mode', () => {
    const c = compareStartups(of(startup({ extra: [nodeAnswer(200, 'True')] })), of(startup()), T);
    expect(c.ready.marker).toBe('syncLoopSyncing');
  });

  it('fails a start-up that failed a phase the baseline passed, naming it', () => {
    const c = compareStartups(of(startup()), of(startup({ failRuntime: true })), T);
    expect(c.phases.find((p) => p.phase === 'run.preInitRuntime')).toMatchObject({ verdict: 'failed', regression: true });
    expect(c.phases.find((p) => p.phase === 'run.sdNotify')).toMatchObject({ verdict: 'onlyInBaseline', regression: false });
    expect(c.regressions).toEqual(['run.preInitRuntime: failed', 'start-up did not reach running (state: failed)', 'time to Ready: never Ready']);
    expect(formatComparison(c)).toMatch(/run\.preInitRuntime .* FAILED/);
  });

  it('does not blame the current build for a failure the baseline had too', () => {
    const c = compareStartups(of(startup({ failRuntime: true })), of(startup({ failRuntime: true })), T);
    expect(c.regressions).toEqual([]);
    expect(c.ready.verdict).toBe('notComparable');
    expect(formatComparison(c)).toContain('failed (in both)');
  });

  it('judges a phase only the current start-up ran against 0 ms', () => {
    const withBootstrap = (ms: number) => [
      state(0, { command: 'parse' }), state(5, { run: 'bootstrap' }), state(5 + ms, { runTail: 'sdNotify' }), state(6 + ms, 'running'), syncing(10 + ms),
    ];
    const base = [state(0, { command: 'parse' }), state(5, { runTail: 'sdNotify' }), state(6, 'running'), syncing(10)];
    expect(compareStartups(of(base), of(withBootstrap(40)), T).phases.find((p) => p.phase === 'run.bootstrap'))
      .toMatchObject({ baseline: null, current: { durationMs: 40 }, verdict: 'onlyInCurrent', regression: false });
    expect(compareStartups(of(base), of(withBootstrap(400)), T).regressions[0]).toBe('run.bootstrap: not run → 400ms (+400ms)');
  });
});
