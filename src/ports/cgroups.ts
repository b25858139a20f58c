/**
 * The cgroup manager (Go's cm.CgroupManager): cgroups named by their components in cgroupfs form
 * ("/kubepods/burstable") whatever the driver, created, set, read back, listed and destroyed in
 * whichever cgroup version the host runs. Implemented by src/adapters/host/cgroupfs.ts (the cgroupfs
 * driver) and systemd-cgroups.ts (the systemd driver: the same cgroup is the slice
 * `kubepods-burstable.slice`); test/fakes has an in-memory one. Failures are KubeletErrors with code
 * KLT_ERR_CGROUP naming the path.
 */
import type { CgroupVersion } from '../domain/cgroups/cgroup-files.js';
import type { ResourceConfig } from '../domain/cgroups/resource-config.js';

export interface CgroupManager {
  readonly version: CgroupVersion;
  /** The cgroup's name on the host, as the runtime is given it (Go's cgroupManager.Name): the path itself for cgroupfs, the slices' expansion for systemd. */
  literalName(path: string): string;
  /**
   * Go's cgroupManager.Validate, plus a write check: the cgroup exists in every controller the
   * kubelet sets (cpu, cpuacct, cpuset, memory, pids on v1; the one directory on v2) and this process
   * may create cgroups in it. Throws naming the path and what is missing.
   */
  validate(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /** Creates the cgroup (its parents too) in every controller, then applies `config`. */
  create(path: string, config: ResourceConfig): Promise<void>;
  update(path: string, config: ResourceConfig): Promise<void>;
  /** The settings as the kernel has them now. */
  read(path: string): Promise<ResourceConfig>;
  /** The names of the cgroup's child cgroups, as the last component of a path at this port ([] when it does not exist). */
  children(path: string): Promise<string[]>;
  /** Kills what still runs in the cgroup and its children, then removes them all (no-op when absent). */
  destroy(path: string): Promise<void>;
  /** Lets go of what the driver holds open (systemd's bus connection). */
  close?(): void;
}
