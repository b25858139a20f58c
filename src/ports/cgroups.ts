/**
 * The cgroup manager (Go's cm.CgroupManager for the cgroupfs driver): cgroups named by their
 * cgroupfs path ("/kubepods/burstable"), created, set, read back, listed and destroyed in whichever
 * cgroup version the host runs. Implemented by src/adapters/host/cgroupfs.ts; test/fakes has an
 * in-memory one. Failures are KubeletErrors with code KLT_ERR_CGROUP naming the path.
 */
import type { CgroupVersion } from '../domain/cgroups/cgroup-files.js';
import type { ResourceConfig } from '../domain/cgroups/resource-config.js';

export interface CgroupManager {
  readonly version: CgroupVersion;
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
  /** The names of the cgroup's child cgroups ([] when it does not exist). */
  children(path: string): Promise<string[]>;
  /** Kills what still runs in the cgroup and its children, then removes them all (no-op when absent). */
  destroy(path: string): Promise<void>;
}
