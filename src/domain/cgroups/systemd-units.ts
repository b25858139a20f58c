/**
 * The systemd cgroup driver's naming and properties, as the Go kubelet (cgroup_manager_linux.go) and
 * runc's systemd manager (libcontainer/cgroups/systemd) make them:
 *
 * - A cgroup named by components (["kubepods", "burstable", "pod1234-ab"]) is the slice unit
 *   `kubepods-burstable-pod1234_ab.slice` (each component's '-' escaped as '_'), found in the cgroup
 *   file system at its expansion `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_ab.slice`;
 *   its parent slice is the one of the components less the last (`-.slice` for the root).
 * - StartTransientUnit gets runc's properties for a slice made with no process (Apply(-1)): a
 *   description, Wants= the parent slice, every accounting on, DefaultDependencies=no. The resources
 *   come after, by SetUnitProperties (runc's Set), as below.
 * - The resources: v1 MemoryLimit, CPUShares; v2 MemoryMax, CPUWeight (from the shares); both
 *   CPUQuotaPeriodUSec (systemd 242 and later), CPUQuotaPerSecUSec (the quota per second, rounded up
 *   to whole 10 ms, since systemd keeps it as a percentage) and TasksMax. -1 ("no limit") is systemd's
 *   infinity, the largest uint64.
 * Pure: the D-Bus calls are src/adapters/systemd's, the cgroup files src/adapters/host's.
 */
import { toSystemd } from '../node/cgroup-roots.js';
import type { CgroupVersion } from './cgroup-files.js';
import { sharesToWeight, type ResourceConfig } from './resource-config.js';

/** One entry of a unit's property array, `(sv)` on the bus: its value's D-Bus signature and the value. */
export interface UnitProperty {
  name: string;
  signature: 'b' | 's' | 'as' | 't';
  value: boolean | string | string[] | bigint;
}

/** systemd's infinity for a limit (USEC_INFINITY, CGROUP_LIMIT_MAX). */
export const SYSTEMD_INFINITY = 2n ** 64n - 1n;
/** The first systemd that takes CPUQuotaPeriodUSec (older ones refuse the property). */
export const CPU_QUOTA_PERIOD_MIN_SYSTEMD = 242;
const ROOT_SLICE = '-.slice';
/** The default cfs period runc assumes for a quota given without one. */
const DEFAULT_CPU_PERIOD_MICROS = 100_000n;
/** systemd keeps the quota as a whole percentage of a cpu: 10 ms per second. */
const CPU_QUOTA_STEP_USEC = 10_000n;

/** The slice of a cgroup (its components), its expansion in the cgroup file system and its parent slice. */
export interface SliceName {
  unit: string;
  /** `/kubepods.slice/kubepods-burstable.slice`; `/` for the root. */
  path: string;
  parent: string;
}

const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Throws on components systemd cannot name (an empty one, a '/'): Go panics there. */
export function sliceOf(components: readonly string[]): SliceName {
  const path = toSystemd(components);
  // [] and [''] are both the root, as Go's ToSystemd has it.
  if (path === '/') return { unit: ROOT_SLICE, path, parent: '' };
  const parentPath = components.length === 1 ? '/' : toSystemd(components.slice(0, -1));
  return { unit: base(path), path, parent: parentPath === '/' ? ROOT_SLICE : base(parentPath) };
}

/**
 * A child slice's directory name back as its last component (`kubepods-burstable-pod12_34.slice` →
 * `pod12-34`), the form pod cgroups are looked up by; null for anything that is not a slice.
 */
export function lastComponentOfSlice(dirName: string): string | null {
  if (!dirName.endsWith('.slice') || dirName === ROOT_SLICE) return null;
  const name = dirName.slice(0, -'.slice'.length);
  return name.slice(name.lastIndexOf('-') + 1).replace(/_/g, '-');
}

/** runc's properties for a slice it starts without a process. */
export function sliceStartProperties(slice: SliceName, version: CgroupVersion): UnitProperty[] {
  const bool = (name: string, value: boolean): UnitProperty => ({ name, signature: 'b', value });
  return [
    { name: 'Description', signature: 's', value: `libcontainer container ${slice.unit}` },
    { name: 'Wants', signature: 'as', value: [slice.parent] },
    bool('MemoryAccounting', true),
    bool('CPUAccounting', true),
    bool(version === 'v2' ? 'IOAccounting' : 'BlockIOAccounting', true),
    bool('TasksAccounting', true),
    bool('DefaultDependencies', false),
  ];
}

const limit = (n: number): bigint => (n < 0 ? SYSTEMD_INFINITY : BigInt(n));

/** runc's CPUQuotaPerSecUSec: the quota per second of cpu time, rounded up to systemd's 10 ms step. */
export function cpuQuotaPerSecUsec(quotaMicros: number, periodMicros: number | undefined): bigint {
  if (quotaMicros <= 0) return SYSTEMD_INFINITY;
  const period = periodMicros ? BigInt(periodMicros) : DEFAULT_CPU_PERIOD_MICROS;
  const perSecond = (BigInt(quotaMicros) * 1_000_000n) / period;
  return perSecond % CPU_QUOTA_STEP_USEC === 0n ? perSecond : (perSecond / CPU_QUOTA_STEP_USEC + 1n) * CPU_QUOTA_STEP_USEC;
}

/** The resources as unit properties, in runc's (v1) order, for SetUnitProperties. */
export function resourceProperties(config: ResourceConfig, version: CgroupVersion, systemdVersion: number): UnitProperty[] {
  const out: UnitProperty[] = [];
  const u64 = (name: string, value: bigint) => out.push({ name, signature: 't', value });
  const { memoryLimitBytes, cpuShares, cpuQuota, cpuPeriod, pidsLimit } = config;
  if (memoryLimitBytes !== undefined && memoryLimitBytes !== 0) u64(version === 'v2' ? 'MemoryMax' : 'MemoryLimit', limit(memoryLimitBytes));
  if (cpuShares !== undefined && cpuShares !== 0) {
    if (version === 'v2') u64('CPUWeight', BigInt(sharesToWeight(cpuShares)));
    else u64('CPUShares', BigInt(cpuShares));
  }
  if (cpuPeriod !== undefined && cpuPeriod !== 0 && systemdVersion >= CPU_QUOTA_PERIOD_MIN_SYSTEMD) u64('CPUQuotaPeriodUSec', BigInt(cpuPeriod));
  if ((cpuQuota !== undefined && cpuQuota !== 0) || (cpuPeriod !== undefined && cpuPeriod !== 0)) u64('CPUQuotaPerSecUSec', cpuQuotaPerSecUsec(cpuQuota ?? 0, cpuPeriod));
  if (pidsLimit !== undefined && (pidsLimit > 0 || pidsLimit === -1)) u64('TasksMax', limit(pidsLimit));
  return out;
}
