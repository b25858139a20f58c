/**
 * What the host tells about the node for /stats/summary, read by the host stats adapter from
 * /proc and statfs (cAdvisor's role in the Go kubelet), and the pure parsers of those files.
 */

/** statfs of one file system, in bytes and inodes. */
export interface FsCapacity {
  capacityBytes: bigint;
  availableBytes: bigint;
  /** blocks − free blocks: what `df` reports as used (includes root-reserved blocks in use). */
  usedBytes: bigint;
  inodes: bigint;
  inodesFree: bigint;
}

/** Bytes and inodes under one directory (a `du`), e.g. a container's log directory. */
export interface DirectoryUsage {
  usedBytes: bigint;
  inodesUsed: bigint;
}

/** /proc/meminfo's lines that matter here, in bytes. */
export interface MemInfo {
  totalBytes: bigint;
  freeBytes: bigint;
  inactiveFileBytes: bigint;
  anonBytes: bigint;
  swapTotalBytes: bigint;
  swapFreeBytes: bigint;
}

/** One process's (or process tree's) usage, as /proc/<pid>/stat and /status give it. */
export interface ProcessUsage {
  cpuNs: bigint;
  residentBytes: bigint;
  anonBytes: bigint;
  minorFaults: bigint;
  majorFaults: bigint;
}

export interface NodeReadings {
  /** When these were read, epoch ns. */
  timestampNs: bigint;
  /** Epoch ns of the boot (btime in /proc/stat): the node stats' startTime, as in Go. */
  bootTimeNs: bigint;
  /** Busy CPU time of every core (everything but idle and iowait), ns. */
  cpuNs: bigint;
  memory: MemInfo;
  /** pgfault / pgmajfault from /proc/vmstat. */
  pageFaults: bigint;
  majorPageFaults: bigint;
  /** statfs of the kubelet's root directory. */
  rootFs: FsCapacity;
  /** /proc/sys/kernel/pid_max and the number of tasks (/proc/loadavg), for `rlimit`. */
  maxPid: number | null;
  tasks: number | null;
  /** The kubelet's own process (and, with the embedded runtime, the runtime in it). */
  kubelet: ProcessUsage & { startTimeNs: bigint };
}

/**
 * USER_HZ: /proc reports CPU time in clock ticks of 1/100 s on every Linux architecture Kubernetes
 * supports (the value is ABI, independent of the kernel's CONFIG_HZ).
 */
export const NS_PER_CLOCK_TICK = 10_000_000n;

/** The aggregate `cpu` line of /proc/stat: busy time (user nice system irq softirq steal) in ns, and btime. */
export function parseProcStat(text: string): { cpuNs: bigint; bootTimeSeconds: bigint } | null {
  const cpu = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map((v) => BigInt(v));
  const btime = /^btime\s+(\d+)$/m.exec(text)?.[1];
  if (!cpu || cpu.length < 4 || btime === undefined) return null;
  // user nice system idle iowait irq softirq steal guest guest_nice: guest time is already in user.
  const [user = 0n, nice = 0n, system = 0n, , , irq = 0n, softirq = 0n, steal = 0n] = cpu;
  return { cpuNs: (user + nice + system + irq + softirq + steal) * NS_PER_CLOCK_TICK, bootTimeSeconds: BigInt(btime) };
}

function kbField(text: string, name: string): bigint | null {
  const escaped = name.replace(/[()]/g, '\\$&');
  const m = new RegExp(`^${escaped}:\\s*(\\d+)\\s*kB\\s*$`, 'm').exec(text);
  return m?.[1] === undefined ? null : BigInt(m[1]) * 1024n;
}

export function parseMemInfo(text: string): MemInfo | null {
  const totalBytes = kbField(text, 'MemTotal');
  const freeBytes = kbField(text, 'MemFree');
  if (totalBytes === null || freeBytes === null) return null;
  return {
    totalBytes,
    freeBytes,
    inactiveFileBytes: kbField(text, 'Inactive(file)') ?? 0n,
    anonBytes: kbField(text, 'AnonPages') ?? 0n,
    swapTotalBytes: kbField(text, 'SwapTotal') ?? 0n,
    swapFreeBytes: kbField(text, 'SwapFree') ?? 0n,
  };
}

/** pgfault and pgmajfault of /proc/vmstat (0 when absent). */
export function parseVmStat(text: string): { pageFaults: bigint; majorPageFaults: bigint } {
  const field = (name: string) => BigInt(new RegExp(`^${name}\\s+(\\d+)$`, 'm').exec(text)?.[1] ?? '0');
  return { pageFaults: field('pgfault'), majorPageFaults: field('pgmajfault') };
}

/** The task count of /proc/loadavg ("0.00 0.01 0.05 2/345 6789" → 345). */
export function parseLoadAvgTasks(text: string): number | null {
  const m = /^\S+\s+\S+\s+\S+\s+\d+\/(\d+)\s/.exec(text);
  return m?.[1] === undefined ? null : Number(m[1]);
}

/**
 * One process's counters from /proc/<pid>/stat: utime stime cutime cstime (fields 14-17, ticks),
 * minflt majflt (10, 12) and starttime (22, ticks after boot). `children` adds cutime + cstime: the
 * CPU time of children this process has already reaped (live children are counted on their own).
 */
export function parsePidStat(text: string): { cpuTicks: bigint; childCpuTicks: bigint; minorFaults: bigint; majorFaults: bigint; pgrp: number; startTicks: bigint } | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // After ')' come field 3 (state) onwards: field N is at index N − 3.
  const f = text.slice(close + 1).trim().split(/\s+/);
  const at = (field: number) => f[field - 3];
  const nums = [10, 12, 14, 15, 16, 17, 22].map((n) => at(n));
  if (nums.some((v) => v === undefined || !/^-?\d+$/.test(v))) return null;
  const [minflt, majflt, utime, stime, cutime, cstime, start] = nums.map((v) => BigInt(v!)) as [bigint, bigint, bigint, bigint, bigint, bigint, bigint];
  return { cpuTicks: utime + stime, childCpuTicks: cutime + cstime, minorFaults: minflt, majorFaults: majflt, pgrp: Number(at(5)), startTicks: start };
}

/** VmRSS and RssAnon of /proc/<pid>/status, in bytes (0 for a kernel thread or a zombie). */
export function parsePidStatus(text: string): { residentBytes: bigint; anonBytes: bigint } {
  return { residentBytes: kbField(text, 'VmRSS') ?? 0n, anonBytes: kbField(text, 'RssAnon') ?? 0n };
}
