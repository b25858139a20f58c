import type { NodeReadings } from '../../src/domain/stats/node-readings.js';
import type { HostStats } from '../../src/ports/stats.js';

const S = 1_000_000_000n;

/** Host readings whose clock and counters a test advances. */
export class FakeHostStats implements HostStats {
  nowNs = 1_700_000_000n * S;
  readonly calls: string[] = [];
  fail: Error | null = null;
  async node(rootDir: string): Promise<NodeReadings> {
    this.calls.push(`node ${rootDir}`);
    if (this.fail) throw this.fail;
    const fs = { capacityBytes: 100n, availableBytes: 50n, usedBytes: 50n, inodes: 10n, inodesFree: 5n };
    return {
      timestampNs: this.nowNs, bootTimeNs: 0n, cpuNs: this.nowNs / 2n,
      memory: { totalBytes: 100n, freeBytes: 10n, inactiveFileBytes: 5n, anonBytes: 20n, swapTotalBytes: 0n, swapFreeBytes: 0n },
      pageFaults: 0n, majorPageFaults: 0n, rootFs: fs, maxPid: null, tasks: null,
      kubelet: { cpuNs: 1n, residentBytes: 1n, anonBytes: 1n, minorFaults: 0n, majorFaults: 0n, startTimeNs: 0n },
    };
  }
  async filesystem(path: string) {
    this.calls.push(`filesystem ${path}`);
    return { capacityBytes: 100n, availableBytes: 50n, usedBytes: 50n, inodes: 10n, inodesFree: 5n };
  }
  async directoryUsage(dir: string) {
    this.calls.push(`du ${dir}`);
    return { usedBytes: 8192n, inodesUsed: 2n };
  }
}
