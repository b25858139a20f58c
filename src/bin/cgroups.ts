/**
 * The container manager's view of the host and of the pods: the cgroup manager of the configured
 * driver (cgroupfs, or systemd over the system bus), and the syncLoop's pods.
 */
import { access } from 'node:fs/promises';
import { detectCgroupLayout } from '../adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../adapters/host/cgroupfs.js';
import { SystemdCgroups } from '../adapters/host/systemd-cgroups.js';
import { createSystemdBus } from '../adapters/systemd/systemd-bus.js';
import { KubeletError } from '../domain/errors.js';
import type { CgroupDriver } from '../domain/node/cgroup-roots.js';
import type { Pod } from '../domain/pod/types.js';
import type { SyncLoopContext } from '../machines/sync-loop.machine.js';
import { possiblyRunningPods } from '../domain/sync-loop/orphans.js';
import type { CgroupManager } from '../ports/cgroups.js';

export async function hostCgroups(driver: CgroupDriver): Promise<CgroupManager> {
  const files = new Cgroupfs(await detectCgroupLayout());
  if (driver === 'cgroupfs') return files;
  // systemd's own check for "booted with systemd" (sd_booted), which runc's UseSystemd makes too.
  const booted = await access('/run/systemd/system').then(() => true, () => false);
  if (!booted) {
    throw new KubeletError('KLT_ERR_CONFIG_INVALID', 'invalid configuration: cgroupDriver (--cgroup-driver) "systemd" needs systemd, and none runs on this host (/run/systemd/system is absent); use "cgroupfs"');
  }
  return new SystemdCgroups(files, createSystemdBus({ env: process.env, uid: process.getuid?.() ?? 0 }));
}

const mayRun = (lifecycle: string) => lifecycle === 'active' || lifecycle === 'terminating';

/** The pods the container manager counts (active) and keeps the cgroups of (possibly running), and those holding DRA claims, from the syncLoop's context. */
export function syncLoopPods(view: () => SyncLoopContext | undefined) {
  return {
    active: (): Pod[] => Object.values(view()?.pods ?? {}).filter((e) => e.lifecycle === 'active').map((e) => e.pod),
    possiblyRunning: (): ReadonlySet<string> => {
      const ctx = view();
      if (!ctx) return new Set();
      return new Set([...Object.entries(ctx.pods).filter(([, e]) => mayRun(e.lifecycle)).map(([uid]) => uid), ...Object.keys(ctx.orphans)]);
    },
    /** The pods that may still hold DRA claims (pods waiting for the Node too), or null before every source was seen. */
    claimHolders: (): ReadonlySet<string> | null => {
      const ctx = view();
      return ctx?.sourcesReady ? new Set(possiblyRunningPods(ctx)) : null;
    },
  };
}
