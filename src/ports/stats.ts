/**
 * The host's side of /stats/summary (cAdvisor's role in the Go kubelet): node-wide readings from
 * /proc and statfs, the size of a file system, and the usage of a directory (a container's logs).
 * The real one is src/adapters/host/host-stats.ts.
 */
import type { DirectoryUsage, FsCapacity, NodeReadings } from '../domain/stats/node-readings.js';

export type { DirectoryUsage, FsCapacity, NodeReadings };

export interface HostStats {
  /** CPU, memory, boot time, the kubelet's own usage, and statfs of `rootDir`. KLT_ERR_HOST_IO on failure. */
  node(rootDir: string): Promise<NodeReadings>;
  /** statfs of the file system holding `path`; null when it cannot be measured (gone, no access). */
  filesystem(path: string): Promise<FsCapacity | null>;
  /** Bytes allocated to and inodes used by everything under `dir`; null when `dir` does not exist. */
  directoryUsage(dir: string): Promise<DirectoryUsage | null>;
}
