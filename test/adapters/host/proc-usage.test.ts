import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readProcessGroupUsage } from '../../../src/adapters/host/proc-usage.js';
import { NS_PER_CLOCK_TICK } from '../../../src/domain/stats/node-readings.js';

let procRoot: string;

beforeEach(async () => {
  procRoot = await mkdtemp(join(tmpdir(), 'proc-usage-'));
});
afterEach(async () => {
  await rm(procRoot, { recursive: true, force: true });
});

/** A /proc/<pid> with the stat and status lines the reader parses: group `pgrp`, 1 + 2 ticks of CPU, 4 kB resident. */
async function fakeProcess(pid: number, pgrp: number): Promise<void> {
  const dir = join(procRoot, String(pid));
  await mkdir(dir);
  await writeFile(join(dir, 'stat'), `${pid} (sh) S 1 ${pgrp} 0 0 0 0 7 0 0 0 1 2 0 0 20 0 1 0 100\n`);
  await writeFile(join(dir, 'status'), 'Name:\tsh\nVmRSS:\t       4 kB\nRssAnon:\t       4 kB\n');
}

describe('readProcessGroupUsage', () => {
  it('reads a node of 3,000 processes with a few files open at a time, and sums each wanted group', async () => {
    for (let pid = 100; pid < 3_100; pid += 100) await Promise.all(Array.from({ length: 100 }, (_, i) => fakeProcess(pid + i, (pid + i) % 3 === 0 ? 42 : 7)));
    const openFds = async () => (await readdir('/proc/self/fd')).length;
    const idle = await openFds();
    let peak = idle;
    let reading = true;
    const sample = async () => {
      while (reading) {
        peak = Math.max(peak, await openFds());
        // Yields a turn between samples so the read being sampled makes progress; not a wait.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const sampling = sample();
    const usage = await readProcessGroupUsage(new Set([42]), procRoot);
    reading = false;
    await sampling;

    expect(usage.get(42)).toMatchObject({ processes: 1_000, cpuNs: 3_000n * NS_PER_CLOCK_TICK, residentBytes: 4_096_000n, minorFaults: 7_000n });
    expect(usage.has(7)).toBe(false);
    expect(peak - idle).toBeLessThan(50);
  }, 60_000);
});
