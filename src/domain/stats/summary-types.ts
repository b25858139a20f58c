/**
 * The kubelet's summary API (k8s.io/kubelet/pkg/apis/stats/v1alpha1): what GET /stats/summary
 * answers, under the Go types' JSON names. Only the fields kubelet-ts fills are declared; every
 * optional Go field is optional here and left out when unknown, as Go's `omitempty` pointers are.
 *
 * Counters and byte counts are Go uint64: `bigint` here, so nanosecond CPU totals beyond 2^53 keep
 * every digit (summary-json.ts writes them as plain JSON numbers). Times are metav1.Time strings
 * (RFC 3339, whole seconds, UTC).
 */

export type U64 = bigint;
export type MetaTime = string;

export interface CpuStats {
  time: MetaTime;
  /** Core-nanoseconds per second over the last sample window; absent until two samples exist. */
  usageNanoCores?: U64;
  /** Cumulative CPU time, all cores, since the object was created. */
  usageCoreNanoSeconds?: U64;
}

export interface MemoryStats {
  time: MetaTime;
  /** Limit − workingSetBytes; absent when there is no limit. */
  availableBytes?: U64;
  usageBytes?: U64;
  workingSetBytes?: U64;
  rssBytes?: U64;
  pageFaults?: U64;
  majorPageFaults?: U64;
}

export interface FsStats {
  time: MetaTime;
  availableBytes?: U64;
  capacityBytes?: U64;
  usedBytes?: U64;
  inodesFree?: U64;
  inodes?: U64;
  inodesUsed?: U64;
}

export interface SwapStats {
  time: MetaTime;
  swapAvailableBytes?: U64;
  swapUsageBytes?: U64;
}

export interface RlimitStats {
  time: MetaTime;
  /** Go int64: the kernel's pid_max. */
  maxpid?: number;
  /** Go int64: tasks (threads) currently in the system. */
  curproc?: number;
}

export interface RuntimeStats {
  imageFs?: FsStats;
  containerFs?: FsStats;
}

export interface ContainerStats {
  name: string;
  startTime: MetaTime;
  cpu?: CpuStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

/** A claim's reference, for a volume that is one (its namespace is the pod's). */
export interface PvcReference {
  name: string;
  namespace: string;
}

/** One of a pod's volumes: its file system figures (inline, as Go embeds FsStats), name and claim. */
export interface VolumeStats extends FsStats {
  /** The pod's name for the volume. */
  name: string;
  pvcRef?: PvcReference;
  /** A CSI driver's VOLUME_CONDITION, with the CSIVolumeHealth feature gate. */
  volumeHealthStats?: { abnormal: boolean };
}

export interface PodStats {
  podRef: PodReference;
  startTime: MetaTime;
  containers: ContainerStats[];
  cpu?: CpuStats;
  memory?: MemoryStats;
  /** The pod's volumes measured so far: local ephemeral ones first, then the others. */
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
}

export interface NodeStats {
  nodeName: string;
  systemContainers?: ContainerStats[];
  startTime: MetaTime;
  cpu?: CpuStats;
  memory?: MemoryStats;
  fs?: FsStats;
  runtime?: RuntimeStats;
  rlimit?: RlimitStats;
  swap?: SwapStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** Go's SystemContainerKubelet: the kubelet's own usage among the node's system containers. */
export const SYSTEM_CONTAINER_KUBELET = 'kubelet';
