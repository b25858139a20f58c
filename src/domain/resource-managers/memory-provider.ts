/**
 * The memory manager as a resource provider (Go's memorymanager.Manager: GetTopologyHints,
 * GetPodTopologyHints, Allocate) with the Static policy; with the None policy (no memory inventory)
 * it has no preference and pins nothing. Only Guaranteed pods' memory and hugepages are pinned.
 */
import { computePodQOS } from '../pod/qos.js';
import type { Container, Pod } from '../pod/types.js';
import type { ProviderContext, ResourceProvider } from './admit.js';
import type { Assignments, PodAssignment } from './assignments.js';
import { containerMemoryRequests, podMemoryRequests } from './memory/requests.js';
import {
  allocateMemory, calculateHints, regeneratedHints, settlePodMemory, viewForPod, type PodMemoryShares,
} from './memory/static-policy.js';

/** Go wraps every memory manager failure as an unexpected admission error. */
const UNEXPECTED = 'UnexpectedAdmissionError';

function sharesOf(assignment: PodAssignment): PodMemoryShares {
  return Object.fromEntries(Object.entries(assignment).map(([name, a]) => [name, a.memory]));
}

function othersOf(assignments: Assignments): Record<string, PodMemoryShares> {
  return Object.fromEntries(Object.entries(assignments).map(([uid, a]) => [uid, sharesOf(a)]));
}

const containersOf = (pod: Pod): Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];

function pinned(ctx: ProviderContext): boolean {
  return ctx.inventory.memory !== null && computePodQOS(ctx.pod) === 'Guaranteed';
}

export const memoryProvider: ResourceProvider = {
  name: 'memory',

  hints(ctx, container) {
    const inventory = ctx.inventory.memory;
    if (inventory === null || !pinned(ctx)) return {};
    const own = sharesOf(ctx.podAssignment);
    const asked = container === null ? podMemoryRequests(ctx.pod) : containerMemoryRequests(container);
    if (!asked.ok) return {};
    const { requests } = asked;
    // A container that has its memory already (after a restart) asks for exactly that.
    const holder = container === null ? containersOf(ctx.pod).find((c) => own[c.name] !== undefined) : own[container.name] ? container : undefined;
    const held = holder === undefined ? undefined : own[holder.name];
    if (held !== undefined) return regeneratedHints(held, requests) ?? {};
    // Pod scope: the hints are for the pod as a whole, before any of its containers has memory.
    return calculateHints(viewForPod(inventory, othersOf(ctx.assignments), ctx.pod, container === null ? {} : own), requests);
  },

  allocate(ctx, container, affinity) {
    const inventory = ctx.inventory.memory;
    if (inventory === null || !pinned(ctx)) return { ok: true, assignment: {} };
    const held = ctx.podAssignment[container.name]?.memory;
    if (held !== undefined) return { ok: true, assignment: { memory: held } };
    const asked = containerMemoryRequests(container);
    if (!asked.ok) return { ok: false, reason: UNEXPECTED, message: asked.error };
    const { requests } = asked;
    const view = viewForPod(inventory, othersOf(ctx.assignments), ctx.pod, sharesOf(ctx.podAssignment));
    const allocated = allocateMemory(view, requests, affinity ?? { numaNodes: null, preferred: false });
    if (!allocated.ok) return { ok: false, reason: UNEXPECTED, message: allocated.message };
    return { ok: true, assignment: { memory: allocated.share } };
  },
};

/** The pod's assignment once every container has its share: init containers' memory reused by later ones is theirs no more. */
export function settleMemory(pod: Pod, assignment: PodAssignment): PodAssignment {
  const settled = settlePodMemory(pod, sharesOf(assignment));
  return Object.fromEntries(Object.entries(assignment).map(([name, a]) => {
    const memory = settled[name];
    return [name, memory === undefined ? a : { ...a, memory }];
  }));
}
