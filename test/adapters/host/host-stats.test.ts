/** The host stats adapter on this machine's real /proc and file systems. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcHostStats } from '../../../src/adapters/host/host-stats.js';

const dir = mkdtempSync(join(tmpdir(), 'kts-hoststats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ProcHostStats', () => {
  const host = new ProcHostStats();

  it('reads the node: busy CPU, memory, boot time, the kubelet process and statfs of the root dir', async () => {
    const n = await host.node(dir);
    expect(n.cpuNs).toBeGreaterThan(0n);
    expect(n.memory.totalBytes).toBeGreaterThan(n.memory.freeBytes);
    expect(n.bootTimeNs).toBeLessThan(n.timestampNs);
    expect(n.rootFs.capacityBytes).toBeGreaterThan(0n);
    expect(n.kubelet.residentBytes).toBeGreaterThan(0n);
    expect(n.kubelet.cpuNs).toBeGreaterThan(0n);
    // This process started after the boot and before now.
    expect(n.kubelet.startTimeNs).toBeGreaterThan(n.bootTimeNs);
    expect(n.kubelet.startTimeNs).toBeLessThanOrEqual(n.timestampNs);
    expect(n.maxPid).toBeGreaterThan(0);
  });

  it('fails with KLT_ERR_HOST_IO naming a root dir it cannot measure', async () => {
    await expect(host.node(join(dir, 'missing'))).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO', message: expect.stringContaining('missing') });
  });

  it('measures a directory like du (allocated blocks, inodes including the directory) and null when absent', async () => {
    mkdirSync(join(dir, 'logs', 'c'), { recursive: true });
    writeFileSync(join(dir, 'logs', 'c', '0.log'), 'x'.repeat(10_000));
    const u = await host.directoryUsage(join(dir, 'logs'));
    expect(u?.inodesUsed).toBe(3n);
    expect(u!.usedBytes).toBeGreaterThanOrEqual(8192n);
    expect(await host.directoryUsage(join(dir, 'nope'))).toBeNull();
    expect(await host.filesystem(join(dir, 'nope'))).toBeNull();
  });
});
