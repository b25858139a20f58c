/**
 * ResourceConfig as cgroup files, for both cgroup versions (what libcontainer's fs and fs2 managers
 * write for the Go kubelet):
 *
 *   setting           v1 (controller/file)                      v2 (one directory)
 *   cpuShares         cpu/cpu.shares                            cpu.weight (sharesToWeight)
 *   cpuPeriod/Quota   cpu/cpu.cfs_period_us, cpu.cfs_quota_us   cpu.max "<quota|max> <period>"
 *   memoryLimitBytes  memory/memory.limit_in_bytes (-1)         memory.max ("max")
 *   pidsLimit         pids/pids.max ("max")                     pids.max ("max")
 *   cpusetCpus/Mems   cpuset/cpuset.cpus, cpuset.mems            cpuset.cpus, cpuset.mems
 *
 * The v1 period is written before the quota: the kernel checks a quota against the current period.
 */
import { sharesToWeight, weightToShares, type NumericSetting, type ResourceConfig } from './resource-config.js';

export type CgroupVersion = 'v1' | 'v2';

/** One write: the v1 controller whose hierarchy holds the file ('' on v2: the cgroup's own directory). */
export interface CgroupFileWrite { controller: string; file: string; value: string }

const unlimited = (n: number, word: string) => (n < 0 ? word : String(n));

export function cgroupFileWrites(version: CgroupVersion, config: ResourceConfig): CgroupFileWrite[] {
  const writes: CgroupFileWrite[] = [];
  const { cpuShares, cpuPeriod, cpuQuota, memoryLimitBytes, pidsLimit, cpusetCpus, cpusetMems } = config;
  const cpuset = (controller: string) => [
    ...(cpusetCpus !== undefined ? [{ controller, file: 'cpuset.cpus', value: cpusetCpus }] : []),
    ...(cpusetMems !== undefined ? [{ controller, file: 'cpuset.mems', value: cpusetMems }] : []),
  ];
  if (version === 'v1') {
    if (cpuShares !== undefined) writes.push({ controller: 'cpu', file: 'cpu.shares', value: String(cpuShares) });
    if (cpuPeriod !== undefined) writes.push({ controller: 'cpu', file: 'cpu.cfs_period_us', value: String(cpuPeriod) });
    if (cpuQuota !== undefined) writes.push({ controller: 'cpu', file: 'cpu.cfs_quota_us', value: String(cpuQuota < 0 ? -1 : cpuQuota) });
    if (memoryLimitBytes !== undefined) writes.push({ controller: 'memory', file: 'memory.limit_in_bytes', value: String(memoryLimitBytes < 0 ? -1 : memoryLimitBytes) });
    if (pidsLimit !== undefined) writes.push({ controller: 'pids', file: 'pids.max', value: unlimited(pidsLimit, 'max') });
    return [...writes, ...cpuset('cpuset')];
  }
  if (cpuShares !== undefined) writes.push({ controller: '', file: 'cpu.weight', value: String(sharesToWeight(cpuShares)) });
  if (cpuQuota !== undefined || cpuPeriod !== undefined) {
    const quota = cpuQuota === undefined || cpuQuota <= 0 ? 'max' : String(cpuQuota);
    writes.push({ controller: '', file: 'cpu.max', value: cpuPeriod === undefined ? quota : `${quota} ${cpuPeriod}` });
  }
  if (memoryLimitBytes !== undefined) writes.push({ controller: '', file: 'memory.max', value: unlimited(memoryLimitBytes, 'max') });
  if (pidsLimit !== undefined) writes.push({ controller: '', file: 'pids.max', value: unlimited(pidsLimit, 'max') });
  return [...writes, ...cpuset('')];
}

/** The files cgroupFileWrites may write, to read them back: every one of the version's. */
export function cgroupFilesRead(version: CgroupVersion): Omit<CgroupFileWrite, 'value'>[] {
  return version === 'v1'
    ? [
        { controller: 'cpu', file: 'cpu.shares' }, { controller: 'cpu', file: 'cpu.cfs_period_us' }, { controller: 'cpu', file: 'cpu.cfs_quota_us' },
        { controller: 'memory', file: 'memory.limit_in_bytes' }, { controller: 'pids', file: 'pids.max' },
      ]
    : [{ controller: '', file: 'cpu.weight' }, { controller: '', file: 'cpu.max' }, { controller: '', file: 'memory.max' }, { controller: '', file: 'pids.max' }];
}

/**
 * Files read back (by file name, trimmed) as a ResourceConfig; a missing file leaves its field out.
 * "max" reads as -1. v1's "no limit" memory (a page-rounded huge number) is left as the kernel says;
 * v2's weight is converted back to shares, so a value written may read back rounded.
 */
export function parseCgroupFiles(version: CgroupVersion, files: Readonly<Record<string, string>>): ResourceConfig {
  const num = (text: string | undefined) => (text === undefined ? undefined : text === 'max' ? -1 : Number(text));
  const out: ResourceConfig = {};
  const set = (key: NumericSetting, value: number | undefined) => {
    if (value !== undefined && !Number.isNaN(value)) out[key] = value;
  };
  if (version === 'v1') {
    set('cpuShares', num(files['cpu.shares']));
    set('cpuPeriod', num(files['cpu.cfs_period_us']));
    set('cpuQuota', num(files['cpu.cfs_quota_us']));
    set('memoryLimitBytes', num(files['memory.limit_in_bytes']));
  } else {
    const weight = num(files['cpu.weight']);
    set('cpuShares', weight === undefined ? undefined : weightToShares(weight));
    const [quota, period] = (files['cpu.max'] ?? '').split(' ');
    set('cpuQuota', quota === '' ? undefined : num(quota));
    set('cpuPeriod', num(period));
    set('memoryLimitBytes', num(files['memory.max']));
  }
  set('pidsLimit', num(files['pids.max']));
  return out;
}
