/**
 * The pod sandbox deletor's choice (Go's deleteSandboxesInPod, pod_sandbox_deleter.go): which of one
 * pod's sandboxes to remove without waiting for the periodic container GC.
 * - A ready sandbox never goes, nor one a container of the pod still names (its containers go
 *   first, through the container deletor or the GC).
 * - The newest `keep` sandboxes, whatever their state, stay: a pod that is not being removed keeps
 *   its latest one (`keep` 1), a deleted pod keeps none (`keep` 0).
 * The answer lists the oldest first, the order Go issues its removals in.
 */
import { compareNs } from './dead-containers.js';

export interface SandboxCandidate {
  id: string;
  ready: boolean;
  /** Creation time, nanoseconds since the epoch, as the runtime answers it (a decimal string). */
  createdAtNs: string;
}

/** How many of its sandboxes a pod keeps: none once its content is to be removed, else the latest. */
export function sandboxesKept(podContentRemovable: boolean): number {
  return podContentRemovable ? 0 : 1;
}

export function sandboxesToRemove(sandboxes: readonly SandboxCandidate[], sandboxIdsWithContainers: ReadonlySet<string>, keep: number): string[] {
  const newestFirst = [...sandboxes].sort((a, b) => compareNs(b.createdAtNs, a.createdAtNs));
  return newestFirst
    .slice(Math.max(0, keep))
    .filter((s) => !s.ready && !sandboxIdsWithContainers.has(s.id))
    .map((s) => s.id)
    .reverse();
}

