/**
 * What the resource managers (Go's CPU, memory and device managers) gave the containers they
 * admitted. The syncLoop keeps these in its state (`resources`), carries a pod's share to its
 * worker, persists every change through its effects and drops a pod's share when its worker is done.
 */
import type { ResourceRequirements } from '../pod/types.js';

/** What the resource managers gave one container at admission. */
export interface ContainerAssignment {
  /** Device IDs per extended resource name (device manager). */
  devices?: Record<string, string[]>;
  /** Exclusive CPU ids, sorted (static CPU manager); absent: the shared pool. */
  cpus?: number[];
  /** NUMA node ids its memory is pinned to (Static memory manager), and bytes per resource ("memory", "hugepages-2Mi"). */
  memory?: { numaNodes: number[]; bytes: Record<string, number> };
  /** The requests and limits allocated to it when they can trail its spec (a resize: resize/allocation.ts). */
  allocated?: ResourceRequirements;
}

/** By container name (init containers too). */
export type PodAssignment = Record<string, ContainerAssignment>;

/** Everything assigned now, by pod uid. Kept in the syncLoop's state (`resources`). */
export type Assignments = Record<string, PodAssignment>;

/** A container that got nothing of its own (it runs on the shared pool, with no device). */
export function isEmptyAssignment(a: ContainerAssignment | undefined): boolean {
  return a === undefined || (a.devices === undefined && a.cpus === undefined && a.memory === undefined && a.allocated === undefined);
}

/** The pod's containers that got something, or null when none did (such a pod is not kept). */
export function keptPodAssignment(assignment: PodAssignment): PodAssignment | null {
  const kept = Object.entries(assignment).filter(([, a]) => !isEmptyAssignment(a));
  return kept.length === 0 ? null : Object.fromEntries(kept);
}

/** `assignments` with the pod's share set (or removed when it has none). */
export function withPodAssignment(assignments: Assignments, uid: string, assignment: PodAssignment): Assignments {
  const kept = keptPodAssignment(assignment);
  const { [uid]: _old, ...rest } = assignments;
  return kept ? { ...rest, [uid]: kept } : rest;
}

/** `assignments` without the pod's share (the same object when it had none). */
export function withoutPod(assignments: Assignments, uid: string): Assignments {
  if (!(uid in assignments)) return assignments;
  const { [uid]: _released, ...rest } = assignments;
  return rest;
}
