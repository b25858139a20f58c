/**
 * The HostStats port over /proc and statfs: what cAdvisor gives the Go kubelet's summary provider
 * for the node (its root container) and what the kubelet's own `du` gives it for log directories.
 *
 * Differences from cAdvisor:
 * - node CPU is /proc/stat's busy time (user nice system irq softirq steal) in 10 ms ticks;
 *   cAdvisor reads the root cgroup's cpuacct, in nanoseconds.
 * - node memory is computed from /proc/meminfo (see build-summary.ts), cAdvisor reads the root
 *   cgroup's memory.stat on cgroup v1; on v2 it too derives the root's figures from meminfo.
 * - the "kubelet" system container is the kubelet's process (with the embedded runtime inside it,
 *   not its shims), not the cgroup it runs in.
 */
import { lstat, readFile, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { NS_PER_CLOCK_TICK, parseLoadAvgTasks, parseMemInfo, parseProcStat, parseVmStat, type DirectoryUsage, type FsCapacity, type NodeReadings } from '../../domain/stats/node-readings.js';
import type { HostStats } from '../../ports/stats.js';
import { readPidUsage } from './proc-usage.js';

export interface HostStatsOptions {
  procRoot?: string;
  /** Epoch ns; the wall clock by default. */
  nowNs?: () => bigint;
  pid?: number;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new KubeletError('KLT_ERR_HOST_IO', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
}

const readOptional = (path: string) => readFile(path, 'utf8').catch(() => null);

export async function statfsCapacity(path: string): Promise<FsCapacity> {
  const s = await statfs(path, { bigint: true });
  return {
    capacityBytes: s.blocks * s.bsize,
    availableBytes: s.bavail * s.bsize,
    usedBytes: (s.blocks - s.bfree) * s.bsize,
    inodes: s.files,
    inodesFree: s.ffree,
  };
}

export class ProcHostStats implements HostStats {
  private readonly proc: string;
  private readonly nowNs: () => bigint;
  private readonly pid: number;

  constructor(opts: HostStatsOptions = {}) {
    this.proc = opts.procRoot ?? '/proc';
    this.nowNs = opts.nowNs ?? (() => BigInt(Date.now()) * 1_000_000n);
    this.pid = opts.pid ?? process.pid;
  }

  async node(rootDir: string): Promise<NodeReadings> {
    const timestampNs = this.nowNs();
    const stat = parseProcStat(await readText(`${this.proc}/stat`));
    const memory = parseMemInfo(await readText(`${this.proc}/meminfo`));
    if (!stat || !memory) throw new KubeletError('KLT_ERR_HOST_IO', `cannot parse ${this.proc}/stat or ${this.proc}/meminfo`);
    const vm = parseVmStat((await readOptional(`${this.proc}/vmstat`)) ?? '');
    const pidMax = (await readOptional(`${this.proc}/sys/kernel/pid_max`))?.trim();
    const loadavg = await readOptional(`${this.proc}/loadavg`);
    const self = await readPidUsage(this.pid, this.proc);
    if (!self) throw new KubeletError('KLT_ERR_HOST_IO', `cannot read ${this.proc}/${this.pid}/stat`);
    let rootFs: FsCapacity;
    try {
      rootFs = await statfsCapacity(rootDir);
    } catch (err) {
      throw new KubeletError('KLT_ERR_HOST_IO', `failed to get rootFs stats for ${JSON.stringify(rootDir)}: ${(err as Error).message}`, { cause: err });
    }
    const bootTimeNs = stat.bootTimeSeconds * 1_000_000_000n;
    return {
      timestampNs,
      bootTimeNs,
      cpuNs: stat.cpuNs,
      memory,
      ...vm,
      rootFs,
      maxPid: pidMax && /^\d+$/.test(pidMax) ? Number(pidMax) : null,
      tasks: loadavg === null ? null : parseLoadAvgTasks(loadavg),
      kubelet: { ...self, startTimeNs: bootTimeNs + self.startTicks * NS_PER_CLOCK_TICK },
    };
  }

  async filesystem(path: string): Promise<FsCapacity | null> {
    return statfsCapacity(path).catch(() => null);
  }

  /**
   * Like `du -s` (allocated blocks) plus an inode count, without crossing into other file systems
   * and counting a file with several hard links once (Go's fs.DiskUsage).
   */
  async directoryUsage(dir: string): Promise<DirectoryUsage | null> {
    const top = await lstat(dir, { bigint: true }).catch(() => null);
    if (!top?.isDirectory()) return null;
    let usedBytes = top.blocks * 512n;
    let inodesUsed = 1n;
    const linked = new Set<bigint>();
    const walk = async (path: string): Promise<void> => {
      const names = await readdir(path).catch(() => [] as string[]);
      for (const name of names) {
        const child = join(path, name);
        const st = await lstat(child, { bigint: true }).catch(() => null);
        if (!st || st.dev !== top.dev) continue;
        if (st.nlink > 1n) {
          if (linked.has(st.ino)) continue;
          linked.add(st.ino);
        }
        usedBytes += st.blocks * 512n;
        inodesUsed += 1n;
        if (st.isDirectory()) await walk(child);
      }
    };
    await walk(dir);
    return { usedBytes, inodesUsed };
  }
}
