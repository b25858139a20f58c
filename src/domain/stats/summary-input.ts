/**
 * What the summary builder reads, as plain data: the runtime's sandboxes, containers and their
 * usage (converted from CRI answers by the stats provider; the domain does not import the CRI port)
 * and the host's readings. Timestamps are epoch nanoseconds, counters bigints.
 */
import type { CpuSample } from './cpu-rate.js';
import type { DirectoryUsage, FsCapacity, NodeReadings } from './node-readings.js';
import type { PodVolumeStats } from './volume-stats.js';

export interface SandboxInfo {
  id: string;
  name: string;
  namespace: string;
  uid: string;
  ready: boolean;
  createdAtNs: bigint;
}

export interface ContainerInfo {
  id: string;
  sandboxId: string;
  name: string;
  running: boolean;
  createdAtNs: bigint;
}

/** A file system's usage by one consumer (images, a writable layer) plus the file system's own size. */
export interface FsUsageReading {
  timestampNs: bigint;
  usedBytes?: bigint;
  inodesUsed?: bigint;
  /** statfs of the file system it lives on; null when that could not be measured. */
  fs: FsCapacity | null;
}

/** One container's usage as the runtime measured it (CRI ContainerStats). */
export interface ContainerUsage {
  containerId: string;
  cpu?: { timestampNs: bigint; usageCoreNanoSeconds?: bigint; usageNanoCores?: bigint };
  memory?: {
    timestampNs: bigint;
    workingSetBytes?: bigint;
    availableBytes?: bigint;
    usageBytes?: bigint;
    rssBytes?: bigint;
    pageFaults?: bigint;
    majorPageFaults?: bigint;
  };
  writableLayer?: FsUsageReading;
}

export interface SummaryInput {
  nodeName: string;
  node: NodeReadings;
  /** CRI ImageFsInfo's image file system; null when not asked for (only CPU and memory). */
  imageFs: FsUsageReading | null;
  /** Its container file system; null when the runtime does not split them (then it is imageFs, as in Go). */
  containerFs: FsUsageReading | null;
  sandboxes: SandboxInfo[];
  containers: ContainerInfo[];
  usage: ContainerUsage[];
  /** Each container's log directory usage, by container id. */
  logs: ReadonlyMap<string, DirectoryUsage>;
  /** statfs of the pod log directory's file system. */
  logFs: FsCapacity | null;
  /** The CPU samples kept from an earlier request, by cpuSampleKey. */
  previousCpu: ReadonlyMap<string, CpuSample>;
  /** Each pod's latest volume stats, by pod uid (absent: none measured yet). */
  volumes?: ReadonlyMap<string, PodVolumeStats>;
}

/** Keys of the CPU samples the builder hands back for the next request's rates. */
export const cpuSampleKey = {
  node: 'node',
  kubelet: 'kubelet',
  container: (id: string) => `container:${id}`,
} as const;
