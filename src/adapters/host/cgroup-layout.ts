/**
 * Where this host's cgroups are: cgroup v2 when the unified hierarchy is mounted at the cgroup mount
 * root (its `cgroup.controllers` file exists, the check Go's libcontainer makes), else cgroup v1 with
 * one mount per controller (or per group of co-mounted controllers), found in /proc/self/mountinfo.
 */
import { access, readFile } from 'node:fs/promises';
import type { CgroupVersion } from '../../domain/cgroups/cgroup-files.js';

export interface CgroupLayout {
  version: CgroupVersion;
  /** v2: the unified mount. v1: unused. */
  unifiedRoot: string;
  /** v1: controller name → its hierarchy's mount point (co-mounted controllers share one). */
  controllers: ReadonlyMap<string, string>;
}

/** The v1 controllers that exist as kernel subsystems (a mount's other options are flags or `name=`). */
const V1_CONTROLLERS = new Set(['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'blkio', 'devices', 'freezer', 'hugetlb', 'net_cls', 'net_prio', 'perf_event', 'rdma', 'misc']);

/** v1 cgroup mounts in a mountinfo text: controller → mount point, the first mount of a hierarchy's root winning. */
export function parseV1ControllerMounts(mountinfo: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0 || fields[separator + 1] !== 'cgroup' || fields[3] !== '/') continue;
    const mountPoint = fields[4]!;
    for (const option of (fields[separator + 3] ?? '').split(',')) {
      if (V1_CONTROLLERS.has(option) && !out.has(option)) out.set(option, mountPoint);
    }
  }
  return out;
}

export async function detectCgroupLayout(mountRoot = '/sys/fs/cgroup', mountinfoPath = '/proc/self/mountinfo'): Promise<CgroupLayout> {
  const isV2 = await access(`${mountRoot}/cgroup.controllers`).then(() => true, () => false);
  if (isV2) return { version: 'v2', unifiedRoot: mountRoot, controllers: new Map() };
  return { version: 'v1', unifiedRoot: mountRoot, controllers: parseV1ControllerMounts(await readFile(mountinfoPath, 'utf8')) };
}
