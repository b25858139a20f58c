/**
 * A pod as the eviction manager weighs it: what it asks for, what it uses, whether it may be
 * evicted at all. Built by the observing effect from the active pods and the summary's pod stats,
 * so the machine (and the journal) carries a few numbers per pod rather than whole pods.
 */
import { isCriticalPod } from '../pod/critical.js';
import { podRequests } from '../pod/resource-requests.js';
import type { Pod } from '../pod/types.js';
import type { PodStats } from '../stats/summary-types.js';

export interface ContainerUsage {
  name: string;
  workingSetBytes?: number;
  /** rootfs + logs bytes, when both are known (Go's evictionMessage needs both). */
  diskBytes?: number;
}

export interface PodUsage {
  memoryBytes: number;
  diskBytes: number;
  inodes: number;
  containers: ContainerUsage[];
}

export interface EvictionCandidate {
  uid: string;
  namespace: string;
  name: string;
  /** spec.priority, 0 when unset (Go's PodPriority). */
  priority: number;
  critical: boolean;
  terminationGracePeriodSeconds?: number;
  /** The pod's requests (Go's podRequest): memory and ephemeral-storage bytes, 0 when none. */
  requests: { memory: number; 'ephemeral-storage': number };
  /** Each container's own requests as written in the spec, for the eviction message. */
  containerRequests: { name: string; memory?: string; 'ephemeral-storage'?: string }[];
  /** Undefined when the summary has no stats for the pod: Go ranks such pods first. */
  usage?: PodUsage;
}

const n = (v: bigint | undefined): number => (v === undefined ? 0 : Number(v));

function podUsage(stats: PodStats): PodUsage {
  const containers = stats.containers.map((c): ContainerUsage => ({
    name: c.name,
    ...(c.memory?.workingSetBytes !== undefined ? { workingSetBytes: Number(c.memory.workingSetBytes) } : {}),
    ...(c.rootfs?.usedBytes !== undefined && c.logs?.usedBytes !== undefined ? { diskBytes: Number(c.rootfs.usedBytes + c.logs.usedBytes) } : {}),
  }));
  return {
    memoryBytes: n(stats.memory?.workingSetBytes),
    diskBytes: stats.containers.reduce((sum, c) => sum + n(c.rootfs?.usedBytes) + n(c.logs?.usedBytes), 0),
    inodes: stats.containers.reduce((sum, c) => sum + n(c.rootfs?.inodesUsed) + n(c.logs?.inodesUsed), 0),
    containers,
  };
}

export function evictionCandidate(pod: Pod, stats: PodStats | undefined): EvictionCandidate {
  const requests = podRequests(pod);
  const grace = pod.spec.terminationGracePeriodSeconds;
  return {
    uid: pod.metadata.uid ?? '',
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name,
    priority: pod.spec.priority ?? 0,
    critical: isCriticalPod(pod),
    ...(grace !== undefined && grace !== null ? { terminationGracePeriodSeconds: grace } : {}),
    requests: { memory: requests.memory ?? 0, 'ephemeral-storage': requests['ephemeral-storage'] ?? 0 },
    containerRequests: pod.spec.containers.map((c) => ({
      name: c.name,
      ...(c.resources?.requests?.memory !== undefined ? { memory: c.resources.requests.memory } : {}),
      ...(c.resources?.requests?.['ephemeral-storage'] !== undefined ? { 'ephemeral-storage': c.resources.requests['ephemeral-storage'] } : {}),
    })),
    ...(stats ? { usage: podUsage(stats) } : {}),
  };
}

/** The candidates for `pods`, matched to their stats by UID. */
export function evictionCandidates(pods: readonly Pod[], stats: readonly PodStats[]): EvictionCandidate[] {
  const byUid = new Map(stats.map((s) => [s.podRef.uid, s]));
  return pods.map((p) => evictionCandidate(p, byUid.get(p.metadata.uid ?? '')));
}
