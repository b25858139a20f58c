/**
 * A cgroup's resource settings and the Go kubelet's conversions into them
 * (pkg/kubelet/cm/helpers_linux.go MilliCPUToShares, MilliCPUToQuota; the v1 → v2 weight formula of
 * KEP 2254). One value per setting; an absent field is left as the kernel has it.
 */

/** Go's cm.ResourceConfig, the part kubelet-ts sets. */
export interface ResourceConfig {
  /** cpu.shares (v1); cpu.weight on v2, converted by sharesToWeight. */
  cpuShares?: number;
  /** cpu.cfs_quota_us / cpu.max's quota, in µs per period; -1 is unlimited. */
  cpuQuota?: number;
  /** cpu.cfs_period_us / cpu.max's period, in µs. */
  cpuPeriod?: number;
  /** memory.limit_in_bytes / memory.max; -1 is unlimited. */
  memoryLimitBytes?: number;
  /** pids.max; -1 is unlimited. */
  pidsLimit?: number;
  /** cpuset.cpus, a CPU list (`0-2,5`): the CPU manager's cpuset of a container. */
  cpusetCpus?: string;
  /** cpuset.mems, a NUMA node list: the memory manager's. */
  cpusetMems?: string;
}

/** The settings that are numbers (the cpuset ones are lists). */
export type NumericSetting = Exclude<keyof ResourceConfig, 'cpusetCpus' | 'cpusetMems'>;

export const MIN_SHARES = 2;
export const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1024;
const MILLI_CPU_TO_CPU = 1000;
/** The default cfs period (100 ms) and the kernel's smallest quota (1 ms). */
export const QUOTA_PERIOD_MICROS = 100_000;
const MIN_QUOTA_PERIOD_MICROS = 1000;

/** Go's MilliCPUToShares: 1024 shares per cpu, clamped to [2, 262144]; no request is the minimum. */
export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu === 0) return MIN_SHARES;
  const shares = Math.floor((milliCpu * SHARES_PER_CPU) / MILLI_CPU_TO_CPU);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** Go's MilliCPUToQuota: the share of `periodMicros` the limit allows, at least 1 ms; 0 with no limit. */
export function milliCpuToQuota(milliCpu: number, periodMicros: number): number {
  if (milliCpu === 0) return 0;
  const quota = Math.floor((milliCpu * periodMicros) / MILLI_CPU_TO_CPU);
  return Math.max(MIN_QUOTA_PERIOD_MICROS, quota);
}

/** cgroup v1 cpu.shares [2, 262144] to v2 cpu.weight [1, 10000] (Go's CpuSharesToCpuWeight). */
export function sharesToWeight(shares: number): number {
  return Math.floor(((shares - 2) * 9999) / 262_142) + 1;
}

/** The inverse (Go's CpuWeightToCpuShares), to read a v2 weight back as shares. */
export function weightToShares(weight: number): number {
  return Math.floor(((weight - 1) * 262_142) / 9999) + 2;
}
