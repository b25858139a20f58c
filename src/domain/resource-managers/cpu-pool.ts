/**
 * The static CPU manager's pools (Go's policy_static: the default CPU set and the assignable CPUs).
 * The shared pool, Go's default set, is every CPU no container holds exclusively: the reserved CPUs
 * are in it (the system's processes and every non-exclusive container run there), they are only
 * kept from exclusive assignment.
 */
import type { Assignments } from './assignments.js';
import type { CpuInventory } from './cpu-inventory.js';
import { cpusWithout, sortedCpus } from './cpu-set.js';

/** Every CPU some container holds exclusively. */
export function exclusiveCpus(assignments: Assignments): number[] {
  return sortedCpus(Object.values(assignments).flatMap((pod) => Object.values(pod).flatMap((c) => c.cpus ?? [])));
}

export const allCpus = (inventory: CpuInventory): number[] => inventory.topology.cpus.map((c) => c.id);

/** Go's default CPU set: every CPU but the exclusively held ones. */
export function sharedCpuPool(inventory: CpuInventory, assignments: Assignments): number[] {
  return cpusWithout(allCpus(inventory), exclusiveCpus(assignments));
}
