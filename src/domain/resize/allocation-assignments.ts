/**
 * A pod's allocation kept beside the resource managers' shares (ContainerAssignment.allocated), so it
 * is persisted, carried and released with them: written to its state file after each change, dropped
 * when the pod's worker is done or when no source has the pod any more.
 */
import type { Assignments, ContainerAssignment, PodAssignment } from '../resource-managers/assignments.js';
import { withPodAssignment } from '../resource-managers/assignments.js';
import type { PodAllocation } from './allocation.js';

/** The pod's kept allocation, or undefined when it has none (its spec is its allocation). */
export function allocationOf(assignment: PodAssignment | undefined): PodAllocation | undefined {
  const kept = Object.entries(assignment ?? {}).filter((e): e is [string, ContainerAssignment & { allocated: NonNullable<ContainerAssignment['allocated']> }] => e[1].allocated !== undefined);
  return kept.length === 0 ? undefined : Object.fromEntries(kept.map(([name, a]) => [name, a.allocated]));
}

/** The pod's share with this allocation kept (or none kept, for null), its other parts untouched. */
export function withAllocation(assignment: PodAssignment, allocation: PodAllocation | null): PodAssignment {
  const out: PodAssignment = {};
  for (const [name, a] of Object.entries(assignment)) {
    const { allocated: _old, ...rest } = a;
    out[name] = rest;
  }
  for (const [name, allocated] of Object.entries(allocation ?? {})) out[name] = { ...(out[name] ?? {}), allocated };
  return out;
}

/** Every pod's allocation, by uid: what the state file holds. */
export function allocationsOf(assignments: Assignments): Record<string, PodAllocation> {
  const out: Record<string, PodAllocation> = {};
  for (const [uid, pod] of Object.entries(assignments)) {
    const allocation = allocationOf(pod);
    if (allocation) out[uid] = allocation;
  }
  return out;
}

/** The assignments with the pod's allocation replaced. */
export function withPodAllocation(assignments: Assignments, uid: string, allocation: PodAllocation | null): Assignments {
  return withPodAssignment(assignments, uid, withAllocation(assignments[uid] ?? {}, allocation));
}
