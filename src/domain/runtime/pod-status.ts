/**
 * The runtime's view of one pod (Go's kubecontainer.PodStatus): its sandboxes and container
 * statuses as found in the runtime by the pod uid label, newest first, as plain JSON. The runtime
 * manager builds it from CRI answers; computePodActions and (later) status computation read it.
 */
import type { ReportedLinuxResources } from './actuated-resources.js';

export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'unknown';

export interface RuntimeSandboxStatus {
  id: string;
  attempt: number;
  ready: boolean;
  /** Nanoseconds since the epoch, decimal string (CRI int64). */
  createdAt: string;
  /** Primary first; empty when the runtime reported none. */
  ips: string[];
  /** False when the runtime gave no network status at all (Go's Network == nil). */
  hasNetworkStatus: boolean;
}

/** What a container runs with, as the runtime reports it (CRI ContainerStatus.resources), in Go's units. */
export interface RuntimeContainerResources {
  cpuLimitMilli?: number;
  cpuRequestMilli?: number;
  memoryLimitBytes?: number;
  /** Never from the runtime: from what the kubelet last actuated. */
  memoryRequestBytes?: number;
}

export interface RuntimeContainerStatus {
  id: string;
  name: string;
  state: RuntimeContainerState;
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  reason: string;
  message: string;
  image: string;
  imageRef: string;
  /** From the io.kubernetes.container.hash annotation; 0 if absent. */
  hash: number;
  /** From the io.kubernetes.container.hashWithoutResources annotation; absent on containers started without it. */
  hashWithoutResources?: number;
  /** From the io.kubernetes.container.restartCount annotation. */
  restartCount: number;
  sandboxId: string;
  /**
   * The cgroup settings the runtime reports for a running container (ContainerStatus
   * resources.linux); absent when it reports none. Read only for a container without an actuation record.
   */
  resources?: ReportedLinuxResources;
}

export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  /** IPs of the newest ready sandbox, primary first. */
  ips: string[];
  /** Newest first. */
  sandboxes: RuntimeSandboxStatus[];
  /** Newest first, all attempts. */
  containers: RuntimeContainerStatus[];
}

/** The newest status of the named container (FindContainerStatusByName). */
export function findContainerStatus(status: RuntimePodStatus, name: string): RuntimeContainerStatus | undefined {
  return status.containers.find((c) => c.name === name);
}

/** Compares CRI nanosecond timestamps (decimal strings) newest first. */
export function newestFirst(a: { createdAt: string }, b: { createdAt: string }): number {
  const x = BigInt(a.createdAt || '0');
  const y = BigInt(b.createdAt || '0');
  return x > y ? -1 : x < y ? 1 : 0;
}
