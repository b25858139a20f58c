/**
 * Heap snapshots of a spawned daemon, for a look at what it keeps (a leak grows between two taken
 * bursts apart). KUBELET_BENCH_HEAP_SNAPSHOTS=DIR gives the daemon `--heapsnapshot-signal=SIGUSR2`
 * and `--diagnostic-dir=DIR`; `takeHeapSnapshot` signals it and waits for the file to be written
 * whole. Compare two with `node dist/bench/heap-diff.js A B`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './static-pod-fleet.js';

export const heapSnapshotDir = (): string | undefined => process.env.KUBELET_BENCH_HEAP_SNAPSHOTS || undefined;

/** The V8 options that let a signal write a snapshot into the directory (none without it). */
export function heapSnapshotFlags(): string[] {
  const dir = heapSnapshotDir();
  return dir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`] : [];
}

/**
 * Signals `pid` to write a heap snapshot into `dir` and answers its path once its size has held for
 * a second (V8 writes it on the event loop's thread, after a full GC; tens of MB take seconds).
 */
export async function takeHeapSnapshot(pid: number, dir: string, timeoutMs = 120_000): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  const t0 = Date.now();
  let last = -1;
  for (;;) {
    await sleep(1000);
    const fresh = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (fresh !== undefined) {
      const size = statSync(join(dir, fresh)).size;
      if (size > 0 && size === last) return join(dir, fresh);
      last = size;
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`no heap snapshot from pid ${pid} in ${dir} within ${timeoutMs} ms`);
  }
}
