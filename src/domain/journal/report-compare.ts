/**
 * Two start-ups side by side (`kubelet-ts report --compare BASELINE LOG`): each phase's offset and
 * duration in both, matched by phase id; the critical path of each; the time to Ready; and whether
 * the second regressed against the first, for a CI step that fails a slower build.
 *
 * The rule: a phase regressed when it grew by more than `maxAddedMs` AND to more than
 * `maxRatio` × the baseline's. Both, because start-up phases range from a fraction of a
 * millisecond to seconds: a ratio alone fails a 1 ms phase that took 3 ms on a busy machine, an
 * added time alone fails a 2 s phase that took 2.3 s. A phase the baseline did not run counts as
 * 0 ms there. The time to Ready is judged the same way with its own allowance, `maxReadyAddedMs`:
 * it sums the noise of every phase before it, so it varies more than any one of them. The current start-up also regressed when a phase failed, when it did not reach
 * `running`, or when it never became Ready though the baseline did.
 */
import type { PhaseId } from '../phases.js';
import type { PhaseOutcome, StartupReport } from './report.js';
import type { ReadyMarker, ReadyMarks } from './startup-ready.js';

export interface CompareThresholds {
  maxRatio: number;
  /** For each phase. */
  maxAddedMs: number;
  /** For the time to Ready. */
  maxReadyAddedMs: number;
}

export type PhaseVerdict =
  /** Within the thresholds. */
  | 'ok'
  /** Took longer beyond both thresholds. */
  | 'regressed'
  /** Failed in the current start-up. */
  | 'failed'
  /** Reached in the current start-up only (judged against 0 ms). */
  | 'onlyInCurrent'
  /** Reached in the baseline only. */
  | 'onlyInBaseline'
  /** Reached in neither. */
  | 'notReached';

export interface PhaseSide {
  startMs: number;
  durationMs: number;
  outcome: PhaseOutcome;
}

export interface PhaseComparison {
  phase: PhaseId;
  baseline: PhaseSide | null;
  current: PhaseSide | null;
  /** current − baseline duration (a phase absent on one side counts 0 ms there). */
  addedMs: number | null;
  /** current / baseline duration; null when the baseline took 0 ms or either side is absent. */
  ratio: number | null;
  verdict: PhaseVerdict;
  /** Whether this row makes the comparison fail. */
  regression: boolean;
}

export interface ReadyComparison {
  /** The mark both logs have (Node Ready if both were in cluster mode), or null. */
  marker: ReadyMarker | null;
  baselineMs: number | null;
  currentMs: number | null;
  addedMs: number | null;
  ratio: number | null;
  verdict: 'ok' | 'regressed' | 'neverReady' | 'notComparable';
  regression: boolean;
}

export interface CriticalPathSide {
  phases: number;
  totalMs: number;
  dominant: { phase: PhaseId; durationMs: number }[];
}

export interface StartupComparison {
  thresholds: CompareThresholds;
  phases: PhaseComparison[];
  ready: ReadyComparison;
  criticalPath: { baseline: CriticalPathSide; current: CriticalPathSide };
  finalState: { baseline: string; current: string };
  /** Whether the current start-up reached `running` where the baseline did. */
  reachedRunning: { baseline: boolean; current: boolean };
  /** One line per reason the comparison fails, naming the phase or mark; empty when it passes. */
  regressions: string[];
}

export interface ComparedStartup {
  report: StartupReport;
  ready: ReadyMarks;
}

/** Whether `current` took too long against `baseline` by the rule above, `maxAddedMs` being the allowance. */
export function exceeds(baselineMs: number, currentMs: number, t: { maxRatio: number; maxAddedMs: number }): boolean {
  return currentMs - baselineMs > t.maxAddedMs && currentMs > t.maxRatio * baselineMs;
}

export function compareStartups(baseline: ComparedStartup, current: ComparedStartup, thresholds: CompareThresholds): StartupComparison {
  const phases = baseline.report.phases.map((b, i) => comparePhase(b, current.report.phases[i]!, thresholds));
  const ready = compareReady(baseline.ready, current.ready, thresholds);
  const reachedRunning = { baseline: baseline.report.runningAtMs !== null, current: current.report.runningAtMs !== null };
  const regressions = [
    ...phases.filter((p) => p.regression).map(describePhaseRegression),
    ...(reachedRunning.baseline && !reachedRunning.current ? [`start-up did not reach running (state: ${current.report.finalState})`] : []),
    ...(ready.regression ? [describeReadyRegression(ready)] : []),
  ];
  return {
    thresholds,
    phases,
    ready,
    criticalPath: { baseline: criticalPathSide(baseline.report), current: criticalPathSide(current.report) },
    finalState: { baseline: baseline.report.finalState, current: current.report.finalState },
    reachedRunning,
    regressions,
  };
}

function side(row: StartupReport['phases'][number]): PhaseSide | null {
  return row.startMs === null ? null : { startMs: row.startMs, durationMs: row.durationMs ?? 0, outcome: row.outcome };
}

function comparePhase(b: StartupReport['phases'][number], c: StartupReport['phases'][number], t: CompareThresholds): PhaseComparison {
  const baseline = side(b);
  const current = side(c);
  const phase = c.phase;
  if (!baseline && !current) return { phase, baseline, current, addedMs: null, ratio: null, verdict: 'notReached', regression: false };
  const baseMs = baseline?.durationMs ?? 0;
  const curMs = current?.durationMs ?? 0;
  const addedMs = curMs - baseMs;
  const ratio = baseline && current && baseMs > 0 ? curMs / baseMs : null;
  const slower = current !== null && exceeds(baseMs, curMs, t);
  const verdict: PhaseVerdict =
    current?.outcome === 'failed' ? 'failed'
      : !current ? 'onlyInBaseline'
        : slower ? 'regressed'
          : !baseline ? 'onlyInCurrent'
            : 'ok';
  // A phase the baseline also failed is no news of this build.
  const regression = verdict === 'regressed' || (verdict === 'failed' && baseline?.outcome !== 'failed');
  return { phase, baseline, current, addedMs, ratio, verdict, regression };
}

function compareReady(baseline: ReadyMarks, current: ReadyMarks, t: CompareThresholds): ReadyComparison {
  const marker: ReadyMarker | null =
    baseline.nodeReady !== undefined && current.nodeReady !== undefined ? 'nodeReady'
      : baseline.syncLoopSyncing !== undefined && current.syncLoopSyncing !== undefined ? 'syncLoopSyncing'
        : null;
  if (marker) {
    const baselineMs = baseline[marker]!;
    const currentMs = current[marker]!;
    const regression = exceeds(baselineMs, currentMs, { maxRatio: t.maxRatio, maxAddedMs: t.maxReadyAddedMs });
    return { marker, baselineMs, currentMs, addedMs: currentMs - baselineMs, ratio: baselineMs > 0 ? currentMs / baselineMs : null, verdict: regression ? 'regressed' : 'ok', regression };
  }
  // The baseline became Ready (by some mark) and the current start-up by none: it never did.
  const baselineMark = baseline.nodeReady ?? baseline.syncLoopSyncing ?? null;
  const currentMark = current.nodeReady ?? current.syncLoopSyncing ?? null;
  const neverReady = baselineMark !== null && currentMark === null;
  return { marker: null, baselineMs: baselineMark, currentMs: currentMark, addedMs: null, ratio: null, verdict: neverReady ? 'neverReady' : 'notComparable', regression: neverReady };
}

function criticalPathSide(report: StartupReport): CriticalPathSide {
  const cp = report.criticalPath;
  return { phases: cp.phases.length, totalMs: cp.totalMs, dominant: cp.dominant.map((d) => ({ phase: d.phase, durationMs: d.durationMs })) };
}

function describePhaseRegression(p: PhaseComparison): string {
  if (p.verdict === 'failed') return `${p.phase}: failed`;
  const base = p.baseline ? `${p.baseline.durationMs}ms` : 'not run';
  return `${p.phase}: ${base} → ${p.current!.durationMs}ms (+${p.addedMs}ms${p.ratio !== null ? `, ×${p.ratio.toFixed(1)}` : ''})`;
}

function describeReadyRegression(r: ReadyComparison): string {
  if (r.verdict === 'neverReady') return 'time to Ready: never Ready';
  return `time to Ready (${READY_LABEL[r.marker!]}): +${r.baselineMs}ms → +${r.currentMs}ms (+${r.addedMs}ms)`;
}

export const READY_LABEL: Record<ReadyMarker, string> = { nodeReady: 'Node Ready', syncLoopSyncing: 'sync loop syncing' };
