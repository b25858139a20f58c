/**
 * How much the start-up of one build varies on this machine, for `report --compare`'s default
 * thresholds: the real binary started `runs` times on the embedded runtime, standalone, each run
 * stopped once Ready (the sync loop's first sync of pods); then every ordered pair of runs compared
 * as `report --compare` would. Per phase: the spread of its duration (min, median, max, max − min,
 * max / min); and how many of the pairs the default thresholds would fail (0 is wanted).
 * `KTS_NOISE_KEEP=DIR` keeps the logs there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import { DEFAULT_THRESHOLDS } from '../src/bin/commands/report-compare.js';
import { compareStartups, type ComparedStartup } from '../src/domain/journal/report-compare.js';
import { startupReport } from '../src/domain/journal/report.js';
import { readyMarks } from '../src/domain/journal/startup-ready.js';
import { recordStartup } from './record-startup.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchStartupNoise(runs = Number(process.env.KTS_NOISE_RUNS ?? 10)): Promise<Record<string, number | string>> {
  const keep = process.env.KTS_NOISE_KEEP;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'kts-bench-noise-'));
  try {
    const startups: ComparedStartup[] = [];
    for (let i = 0; i < runs; i++) {
      const { records } = readJournal(await recordStartup(join(dir, `run-${i}`)));
      startups.push({ report: startupReport(records), ready: readyMarks(records) });
    }
    const phases: Record<string, string> = {};
    for (const [k, row] of startups[0]!.report.phases.entries()) {
      const ds = startups.map((s) => s.report.phases[k]!.durationMs).filter((d): d is number => d !== null);
      if (ds.length === 0) continue;
      const min = Math.min(...ds);
      const max = Math.max(...ds);
      phases[row.phase] = `min ${min} median ${median(ds)} max ${max} ms, max-min ${max - min} ms, max/min ${min > 0 ? (max / min).toFixed(1) : '-'}`;
    }
    const ready = startups.map((s) => s.ready.syncLoopSyncing!);
    let failing = 0;
    const failures: string[] = [];
    for (const a of startups) {
      for (const b of startups) {
        if (a === b) continue;
        const c = compareStartups(a, b, DEFAULT_THRESHOLDS);
        if (c.regressions.length > 0) {
          failing++;
          failures.push(...c.regressions);
        }
      }
    }
    return {
      runs,
      timeToReadyMs: `min ${Math.min(...ready)} median ${median(ready)} max ${Math.max(...ready)}`,
      ...phases,
      pairs: runs * (runs - 1),
      pairsFailingWithDefaults: failing,
      defaults: `--max-ratio ${DEFAULT_THRESHOLDS.maxRatio} --max-added-ms ${DEFAULT_THRESHOLDS.maxAddedMs}`,
      ...(failures.length > 0 ? { failures: failures.slice(0, 10).join(' | ') } : {}),
    };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}
