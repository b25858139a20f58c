/**
 * How much the start-up of one build varies on this machine, for `report --compare`'s default
 * thresholds (`npm run bench -- startupnoise`, and `startupnoisecluster` for cluster mode): the
 * real binary started `runs` times, each run stopped once Ready; then every ordered pair of runs
 * compared as `report --compare` would. Per phase: the spread of its duration (min, median, max,
 * max − min, max / min); the spread of the time to Ready; how many of the pairs the default
 * thresholds fail (0 is wanted); and, with 500 ms added to each phase of the second run of each
 * pair in turn (and to its time to Ready), how many times that phase was not named (0 is wanted).
 * KTS_NOISE_RUNS=N runs (10); KTS_NOISE_KEEP=DIR keeps the logs there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import { DEFAULT_THRESHOLDS } from '../src/bin/commands/report-compare.js';
import { compareStartups, type ComparedStartup } from '../src/domain/journal/report-compare.js';
import { startupReport } from '../src/domain/journal/report.js';
import { readyMarks, type ReadyMarker } from '../src/domain/journal/startup-ready.js';
import type { PhaseId } from '../src/domain/phases.js';
import { recordStartup } from './record-startup.js';

const INJECTED_MS = 500;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Standalone on the embedded runtime. */
export function benchStartupNoise(): Promise<Record<string, number | string>> {
  return startupNoise('syncLoopSyncing', (dir) => recordStartup(dir));
}

/** `record(dir)` start-ups, Ready by `marker`, measured. */
export async function startupNoise(marker: ReadyMarker, record: (dir: string) => Promise<string>): Promise<Record<string, number | string>> {
  const runs = Number(process.env.KTS_NOISE_RUNS ?? 10);
  const keep = process.env.KTS_NOISE_KEEP;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'kts-bench-noise-'));
  try {
    const startups: ComparedStartup[] = [];
    for (let i = 0; i < runs; i++) {
      const { records } = readJournal(await record(join(dir, `run-${i}`)));
      startups.push({ report: startupReport(records), ready: readyMarks(records) });
    }
    return noiseFigures(startups, marker);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

export function noiseFigures(startups: ComparedStartup[], marker: ReadyMarker): Record<string, number | string> {
  const phases: Record<string, string> = {};
  for (const [k, row] of startups[0]!.report.phases.entries()) {
    const ds = startups.map((s) => s.report.phases[k]!.durationMs).filter((d): d is number => d !== null);
    if (ds.length === 0) continue;
    const min = Math.min(...ds);
    const max = Math.max(...ds);
    phases[row.phase] = `min ${min} median ${median(ds)} max ${max} ms, max-min ${max - min} ms, max/min ${min > 0 ? (max / min).toFixed(1) : '-'}`;
  }
  const ready = startups.map((s) => s.ready[marker]!);
  let failing = 0;
  let delays = 0;
  let missed = 0;
  const failures: string[] = [];
  for (const a of startups) {
    for (const b of startups) {
      if (a === b) continue;
      const c = compareStartups(a, b, DEFAULT_THRESHOLDS);
      if (c.regressions.length > 0) failing++;
      failures.push(...c.regressions);
      for (const p of b.report.phases) {
        if (p.startMs === null || a.report.phases.find((q) => q.phase === p.phase)?.startMs === null) continue;
        delays++;
        if (!compareStartups(a, delayed(b, p.phase, marker), DEFAULT_THRESHOLDS).phases.find((q) => q.phase === p.phase)!.regression) missed++;
      }
    }
  }
  return {
    runs: startups.length,
    [`timeToReadyMs (${marker})`]: `min ${Math.min(...ready)} median ${median(ready)} max ${Math.max(...ready)}, max-min ${Math.max(...ready) - Math.min(...ready)}`,
    ...phases,
    defaults: `--max-ratio ${DEFAULT_THRESHOLDS.maxRatio} --max-added-ms ${DEFAULT_THRESHOLDS.maxAddedMs} --max-ready-added-ms ${DEFAULT_THRESHOLDS.maxReadyAddedMs}`,
    pairsFailingWithDefaults: `${failing} of ${startups.length * (startups.length - 1)}`,
    [`phasesDelayed${INJECTED_MS}msNotNamed`]: `${missed} of ${delays}`,
    ...(failures.length > 0 ? { failures: failures.slice(0, 10).join(' | ') } : {}),
  };
}

/** The start-up with INJECTED_MS more in `phase`, and every later offset and Ready as much later. */
function delayed(s: ComparedStartup, phase: PhaseId, marker: ReadyMarker): ComparedStartup {
  let after = false;
  const phases = s.report.phases.map((p) => {
    const row = { ...p, ...(after && p.startMs !== null ? { startMs: p.startMs + INJECTED_MS } : {}) };
    if (p.phase === phase) {
      after = true;
      row.durationMs = (p.durationMs ?? 0) + INJECTED_MS;
    }
    return row;
  });
  return { report: { ...s.report, phases }, ready: { ...s.ready, [marker]: s.ready[marker]! + INJECTED_MS } };
}
