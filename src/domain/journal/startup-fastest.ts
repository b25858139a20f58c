/**
 * Several recordings of one build's start-up as one, for `report --compare` with more than one log a
 * side: each phase's shortest duration, the earliest time to Ready. On a busy machine noise only ever
 * adds time, so the shortest of a few runs is the closest to what the build costs, and one run
 * slowed by a neighbour no longer decides the verdict. A failure, or a start-up that did not reach
 * `running`, in any of them stands: that is not noise.
 */
import type { ComparedStartup } from './report-compare.js';
import { criticalPathOf, type PhaseRow } from './report.js';
import type { ReadyMarker, ReadyMarks } from './startup-ready.js';

export function fastestOf(startups: readonly ComparedStartup[]): ComparedStartup {
  const [first, ...rest] = startups;
  if (!first) throw new Error('fastestOf: no start-up');
  if (rest.length === 0) return first;
  const phases = first.report.phases.map((row, k) => shortest(startups.map((s) => s.report.phases[k]!), row));
  const stopped = startups.find((s) => s.report.runningAtMs === null);
  const ready: ReadyMarks = {};
  for (const marker of ['nodeReady', 'syncLoopSyncing'] as ReadyMarker[]) {
    const marks = startups.map((s) => s.ready[marker]);
    // A mark only some runs reached is not a mark of the build.
    if (marks.every((m) => m !== undefined)) ready[marker] = Math.min(...(marks as number[]));
  }
  return {
    report: {
      phases,
      finalState: (stopped ?? first).report.finalState,
      runningAtMs: stopped ? null : Math.min(...startups.map((s) => s.report.runningAtMs!)),
      criticalPath: criticalPathOf(phases),
      coveredMs: Math.max(...startups.map((s) => s.report.coveredMs)),
    },
    ready,
  };
}

/** A phase's row across runs: a failed one if any failed, else the one with the shortest duration. */
function shortest(rows: PhaseRow[], fallback: PhaseRow): PhaseRow {
  const failed = rows.find((r) => r.outcome === 'failed');
  if (failed) return failed;
  const reached = rows.filter((r) => r.startMs !== null);
  if (reached.length === 0) return fallback;
  return reached.reduce((best, r) => ((r.durationMs ?? 0) < (best.durationMs ?? 0) ? r : best));
}
