/**
 * The CPU manager as a resource provider (Go's cpumanager.Manager: GetTopologyHints, Allocate).
 * With the none policy (no CPU inventory) it assigns nothing: every container runs on all CPUs.
 * With the static policy, cpu-static-policy.ts decides.
 */
import type { ResourceProvider } from './admit.js';
import { allocateStatic, containerCpuHints, podCpuHints } from './cpu-static-policy.js';

export const cpuProvider: ResourceProvider = {
  name: 'cpu',
  hints: (ctx, container) => {
    const cpu = ctx.inventory.cpu;
    if (!cpu) return {};
    return container ? containerCpuHints(cpu, ctx.pod, container, ctx.assignments, ctx.podAssignment) : podCpuHints(cpu, ctx.pod, ctx.assignments, ctx.podAssignment);
  },
  allocate: (ctx, container, affinity) => {
    const cpu = ctx.inventory.cpu;
    if (!cpu) return { ok: true, assignment: {} };
    const allocated = allocateStatic(cpu, ctx.pod, container, ctx.assignments, ctx.podAssignment, affinity);
    if (!allocated.ok) return allocated;
    return { ok: true, assignment: allocated.cpus ? { cpus: allocated.cpus } : {} };
  },
};
