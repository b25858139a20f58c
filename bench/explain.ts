/**
 * What `kubelet-ts explain` costs on a full journal (8 segments of 64 MiB, a long run's pods come
 * and gone: large-journal.ts): wall time and peak RSS of the command, which streams the log, beside
 * the log read whole and explained from memory (readJournal, then explainPod). Each in a process of
 * its own (explain-child.ts), so each peak RSS is its own. KUBELET_BENCH_EXPLAIN_MIB: a smaller log.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeLargeJournal } from './large-journal.js';
import type { ExplainMode, ExplainRun } from './explain-child.js';

const MIB = 1024 * 1024;
const FULL_LOG_MIB = 512;
const SEGMENT_BYTES = 64 * MIB;
/** Room for the whole read (the log held as records takes several times its size), so it is measured, not killed. */
const CHILD_HEAP_MIB = 8192;

export async function benchExplain(logMiB = Number(process.env.KUBELET_BENCH_EXPLAIN_MIB ?? FULL_LOG_MIB)): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-explain-'));
  try {
    const log = await writeLargeJournal({ dir: join(dir, 'events'), bytes: logMiB * MIB, segmentBytes: SEGMENT_BYTES });
    const query = `${log.target.namespace}/${log.target.name}`;
    const streamed = run('streamed', log.path, query);
    const whole = run('whole', log.path, query);
    return {
      logMiB: round(log.bytes / MIB),
      records: log.records,
      pods: log.pods,
      streamedSeconds: round(streamed.ms / 1000),
      streamedPeakRssMiB: round(streamed.maxRssKiB / 1024),
      wholeSeconds: round(whole.ms / 1000),
      wholePeakRssMiB: round(whole.maxRssKiB / 1024),
      speedup: round(whole.ms / streamed.ms),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(mode: ExplainMode, path: string, query: string): ExplainRun {
  const child = fileURLToPath(new URL('./explain-child.js', import.meta.url));
  const r = spawnSync(process.execPath, [`--max-old-space-size=${CHILD_HEAP_MIB}`, child, mode, path, query], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`explain (${mode}) failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ExplainRun;
}

const round = (n: number) => Math.round(n * 100) / 100;
