import { describe, expect, it } from 'vitest';
import { cpuSeconds, mainThreadCpuSeconds, pidsWithCommandLine, pssMiB, rssMiB, rssPartsMiB, threadCpuSeconds } from '../../bench/proc-usage.js';

describe('proc-usage', () => {
  it('reads this process: RSS within what Node reports, PSS no more than RSS', () => {
    const nodeRss = process.memoryUsage().rss / 1024 / 1024;
    const rss = rssMiB(process.pid);
    expect(rss).toBeGreaterThan(nodeRss * 0.5);
    expect(rss).toBeLessThan(nodeRss * 2);
    expect(pssMiB(process.pid)).toBeGreaterThan(0);
    expect(pssMiB(process.pid)).toBeLessThanOrEqual(rss + 1);
  });

  it('splits RSS into anonymous and file pages that add up to it (shared memory aside), zeros for no process', () => {
    const { anon, file } = rssPartsMiB(process.pid);
    expect(anon).toBeGreaterThan(1);
    expect(file).toBeGreaterThan(1);
    expect(anon + file).toBeLessThanOrEqual(rssMiB(process.pid) + 1);
    expect(rssPartsMiB(2 ** 22 + 1)).toEqual({ anon: 0, file: 0 });
  });

  it('counts CPU time as the process itself accounts it, in seconds', () => {
    const before = cpuSeconds(process.pid);
    const usage0 = process.cpuUsage();
    let x = 0;
    // Spin until Node says 300 ms of CPU were used (wall time would vary with the machine's load).
    const used = () => {
      const u = process.cpuUsage(usage0);
      return u.user + u.system;
    };
    while (used() < 300_000) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
    const spent = cpuSeconds(process.pid) - before;
    expect(x).toBeGreaterThan(0);
    expect(spent).toBeGreaterThan(0.25); // clock ticks are 10 ms
    expect(spent).toBeLessThan(1);
  });

  it("reads each thread's CPU, the main thread first, and they add up to the process's", () => {
    const threads = threadCpuSeconds(process.pid);
    expect([...threads.keys()][0]).toBe(process.pid);
    expect(threads.get(process.pid)).toBeCloseTo(mainThreadCpuSeconds(process.pid), 1);
    const sum = [...threads.values()].reduce((a, b) => a + b, 0);
    expect(sum).toBeLessThanOrEqual(cpuSeconds(process.pid) + 0.05);
  });

  it('reports 0 for a process that does not exist, and finds processes by command line', () => {
    expect(rssMiB(2 ** 22 + 1)).toBe(0);
    expect(pidsWithCommandLine(process.argv[1]!)).toContain(process.pid);
  });
});
