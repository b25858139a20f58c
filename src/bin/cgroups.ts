/**
 * The container manager's view of the host and of the pods: the cgroupfs manager (the systemd driver
 * answers an error: kubelet-ts drives cgroups through cgroupfs alone), and the syncLoop's pods.
 */
import { access } from 'node:fs/promises';
import { detectCgroupLayout } from '../adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../adapters/host/cgroupfs.js';
import { KubeletError } from '../domain/errors.js';
import type { CgroupDriver } from '../domain/node/cgroup-roots.js';
import type { Pod } from '../domain/pod/types.js';
import type { SyncLoopContext } from '../machines/sync-loop.machine.js';
import type { CgroupManager } from '../ports/cgroups.js';

export async function hostCgroups(driver: CgroupDriver): Promise<CgroupManager> {
  if (driver === 'systemd') {
    // systemd's own check for "booted with systemd" (sd_booted).
    const booted = await access('/run/systemd/system').then(() => true, () => false);
    throw new KubeletError('KLT_ERR_CONFIG_INVALID', booted
      ? 'invalid configuration: cgroupDriver (--cgroup-driver) "systemd" is not supported by kubelet-ts; use "cgroupfs"'
      : 'invalid configuration: cgroupDriver (--cgroup-driver) "systemd" needs systemd, and none runs on this host (/run/systemd/system is absent); use "cgroupfs"');
  }
  return new Cgroupfs(await detectCgroupLayout());
}

const mayRun = (lifecycle: string) => lifecycle === 'active' || lifecycle === 'terminating';

/** The pods the container manager counts (active) and keeps the cgroups of (possibly running), from the syncLoop's context. */
export function syncLoopPods(view: () => SyncLoopContext | undefined) {
  return {
    active: (): Pod[] => Object.values(view()?.pods ?? {}).filter((e) => e.lifecycle === 'active').map((e) => e.pod),
    possiblyRunning: (): ReadonlySet<string> => {
      const ctx = view();
      if (!ctx) return new Set();
      return new Set([...Object.entries(ctx.pods).filter(([, e]) => mayRun(e.lifecycle)).map(([uid]) => uid), ...Object.keys(ctx.orphans)]);
    },
  };
}
