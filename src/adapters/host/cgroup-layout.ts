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
  /**
   * v1: every cgroup hierarchy's mount point, the controllers' and the others: a named one
   * (`name=systemd`) and, on a hybrid host, the unified one. runc makes a container's cgroup in each,
   * so a pod cgroup is made and removed in each too (otherwise empty parents stay behind there).
   */
  hierarchies: readonly string[];
}

/** The v1 controllers that exist as kernel subsystems (a mount's other options are flags or `name=`). */
const V1_CONTROLLERS = new Set(['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'blkio', 'devices', 'freezer', 'hugetlb', 'net_cls', 'net_prio', 'perf_event', 'rdma', 'misc']);

/** The cgroup mounts of a mountinfo text (of a hierarchy's root): their mount point, type and super options. */
function cgroupMounts(mountinfo: string): { mountPoint: string; fsType: string; options: string[] }[] {
  const out: { mountPoint: string; fsType: string; options: string[] }[] = [];
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    const fsType = fields[separator + 1] ?? '';
    if (separator < 0 || (fsType !== 'cgroup' && fsType !== 'cgroup2') || fields[3] !== '/') continue;
    out.push({ mountPoint: fields[4]!, fsType, options: (fields[separator + 3] ?? '').split(',') });
  }
  return out;
}

/** v1 cgroup mounts in a mountinfo text: controller → mount point, the first mount of a hierarchy's root winning. */
export function parseV1ControllerMounts(mountinfo: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const mount of cgroupMounts(mountinfo)) {
    if (mount.fsType !== 'cgroup') continue;
    for (const option of mount.options) {
      if (V1_CONTROLLERS.has(option) && !out.has(option)) out.set(option, mount.mountPoint);
    }
  }
  return out;
}

/** Every cgroup hierarchy's mount point (first mount of each), in mountinfo order. */
export function parseHierarchyMounts(mountinfo: string): string[] {
  return [...new Set(cgroupMounts(mountinfo).map((m) => m.mountPoint))];
}

export async function detectCgroupLayout(mountRoot = '/sys/fs/cgroup', mountinfoPath = '/proc/self/mountinfo'): Promise<CgroupLayout> {
  const isV2 = await access(`${mountRoot}/cgroup.controllers`).then(() => true, () => false);
  if (isV2) return { version: 'v2', unifiedRoot: mountRoot, controllers: new Map(), hierarchies: [mountRoot] };
  const mountinfo = await readFile(mountinfoPath, 'utf8');
  return { version: 'v1', unifiedRoot: mountRoot, controllers: parseV1ControllerMounts(mountinfo), hierarchies: parseHierarchyMounts(mountinfo) };
}
