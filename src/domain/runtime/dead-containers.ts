/**
 * The pod container deletor's choice (Go's getContainersToDeleteInPod, pod_container_deletor.go):
 * which exited containers of one pod to remove when one of them has just died, without waiting for
 * the periodic container GC.
 * - With a dead container named: only the exited containers of its name are candidates; a name the
 *   pod does not have (already removed) means nothing to do.
 * - With none (`null`, the pod's content is to go): every exited container of the pod.
 * The newest `keep` candidates stay (their logs are what `kubectl logs --previous` reads), the rest
 * go, oldest last in the answer as Go orders them.
 */
import type { RuntimeContainerState } from './pod-status.js';

export interface DeadContainerCandidate {
  id: string;
  /** The container's name in the pod spec. */
  name: string;
  state: RuntimeContainerState;
  /** Creation time, nanoseconds since the epoch, as the runtime answers it (a decimal string). */
  createdAtNs: string;
}

/** Go's minDeadContainerInPod: a pod that is not being removed keeps at least one dead instance per name. */
export const MIN_DEAD_CONTAINERS_KEPT = 1;

/** How many dead instances of each container a pod keeps, from --maximum-dead-containers-per-container. */
export function deadContainersKept(maxPerPodContainerCount: number): number {
  return Math.max(maxPerPodContainerCount, MIN_DEAD_CONTAINERS_KEPT);
}

export function deadContainersToRemove(containers: readonly DeadContainerCandidate[], diedContainerId: string | null, keep: number): string[] {
  const died = diedContainerId === null ? null : containers.find((c) => c.id === diedContainerId);
  if (died === undefined) return [];
  const candidates = containers.filter((c) => c.state === 'exited' && (died === null || c.name === died.name));
  if (candidates.length <= keep) return [];
  const newestFirst = [...candidates].sort((a, b) => compareNs(b.createdAtNs, a.createdAtNs));
  return newestFirst.slice(Math.max(0, keep)).map((c) => c.id);
}

/** Orders two runtime creation times (decimal nanosecond strings). */
export function compareNs(a: string, b: string): number {
  const x = BigInt(a || '0');
  const y = BigInt(b || '0');
  return x > y ? 1 : x < y ? -1 : 0;
}
