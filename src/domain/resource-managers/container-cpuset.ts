/**
 * The cpuset a container is created with (Go's internal container lifecycle, PreCreateContainer):
 * its exclusive CPUs, or the static CPU manager's shared pool for any other container (GetCPUAffinity
 * answers the default set), and the NUMA nodes the Static memory manager pinned its memory to.
 */
import type { ContainerAssignment } from './assignments.js';
import { formatCpuSet } from './cpu-set.js';

export function containerCpuset(assignment: ContainerAssignment | undefined, sharedCpus: readonly number[] | undefined): { cpus?: string; mems?: string } | null {
  const cpus = assignment?.cpus ?? (sharedCpus && sharedCpus.length > 0 ? sharedCpus : undefined);
  const mems = assignment?.memory?.numaNodes;
  if (cpus === undefined && mems === undefined) return null;
  return { ...(cpus ? { cpus: formatCpuSet(cpus) } : {}), ...(mems && mems.length > 0 ? { mems: formatCpuSet(mems) } : {}) };
}
