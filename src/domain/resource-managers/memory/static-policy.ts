/**
 * The Static memory manager policy (Go: memorymanager/policy_static.go), pure: hints for the topology
 * manager and the allocation of a Guaranteed pod's containers to NUMA nodes.
 *
 * - Hints: every set of nodes whose allocatable memory covers the request and whose free memory
 *   (plus what the pod's init containers leave for reuse) still does; the narrowest are preferred. A
 *   node that already serves a single-node allocation is never part of a multi-node hint, and a
 *   multi-node group is only used whole (Go's rule that no node mixes the two).
 * - Allocation: the merged affinity, or the best hint when the topology manager gave none, widened to
 *   the best hint containing it when it cannot hold the request.
 * - Init containers' memory is reused by the containers after them on the same nodes: the pod holds
 *   the larger of the two, not the sum; `settlePodMemory` then shrinks the init containers' shares so
 *   that the shares add up to what the pod holds, as Go's state does.
 */
import type { Container, Pod } from '../../pod/types.js';
import type { TopologyHint } from '../topology/hint.js';
import { everySubMask, isMaskNarrowerThan, isSubMask, sameMask } from '../topology/numa-mask.js';
import { defaultMachineState, takeMemory, type MachineState, type MemoryInventory } from './machine-state.js';
import type { MemoryRequests } from './requests.js';

/** A container's memory: the NUMA nodes, and bytes per resource (the assignment's `memory`). */
export interface MemoryShare {
  numaNodes: number[];
  bytes: Record<string, number>;
}

/** By container name. */
export type PodMemoryShares = Record<string, MemoryShare | undefined>;

/** Memory an init container leaves for the containers after it, by affinity then resource. */
type Reusable = Map<string, Record<string, number>>;

const key = (mask: readonly number[]): string => mask.join(',');

function sortedEntries(bytes: Record<string, number>): [string, number][] {
  return Object.entries(bytes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The machine with every other pod's memory taken out, share by share (Go's validateState arithmetic). */
export function machineStateWith(inventory: MemoryInventory, others: Record<string, PodMemoryShares>): MachineState {
  const state = defaultMachineState(inventory);
  for (const uid of Object.keys(others).sort()) {
    const shares = others[uid] ?? {};
    for (const name of Object.keys(shares).sort()) {
      const share = shares[name];
      if (share === undefined) continue;
      for (const [type, size] of sortedEntries(share.bytes)) takeMemory(state, share.numaNodes, type, size);
    }
  }
  return state;
}

const isInitContainer = (pod: Pod, name: string): boolean => (pod.spec.initContainers ?? []).some((c) => c.name === name);

function reusableFor(reusable: Reusable, mask: readonly number[], type: string): number {
  return reusable.get(key(mask))?.[type] ?? 0;
}

/** Go's updatePodReusableMemory after a container got `share`. */
function noteReuse(reusable: Reusable, pod: Pod, container: string, share: MemoryShare): void {
  const entry = reusable.get(key(share.numaNodes)) ?? {};
  reusable.set(key(share.numaNodes), entry);
  for (const [type, size] of sortedEntries(share.bytes)) {
    if (isInitContainer(pod, container)) entry[type] = Math.max(entry[type] ?? 0, size);
    else if ((entry[type] ?? 0) > 0) entry[type] = Math.max(0, (entry[type] ?? 0) - size);
  }
}

/** Go's Allocate bookkeeping for one container: what init containers left is taken first. */
function takeShare(state: MachineState, reusable: Reusable, share: MemoryShare): void {
  for (const [type, size] of sortedEntries(share.bytes)) {
    const reuse = reusableFor(reusable, share.numaNodes, type);
    takeMemory(state, share.numaNodes, type, reuse >= size ? 0 : size - reuse);
  }
}

export interface PodMemoryView {
  state: MachineState;
  reusable: Reusable;
}

/**
 * The machine as this pod's next container finds it: other pods' memory out, and this pod's earlier
 * containers (in spec order: init containers first) replayed with reuse.
 */
export function viewForPod(inventory: MemoryInventory, others: Record<string, PodMemoryShares>, pod: Pod, own: PodMemoryShares): PodMemoryView {
  const state = machineStateWith(inventory, others);
  const reusable: Reusable = new Map();
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    const share = own[c.name];
    if (share === undefined) continue;
    takeShare(state, reusable, share);
    noteReuse(reusable, pod, c.name, share);
  }
  return { state, reusable };
}

/** Go's calculateHints: per requested resource, every node set that can serve the request now. */
export function calculateHints(view: PodMemoryView, requests: MemoryRequests): Record<string, TopologyHint[]> {
  const { state } = view;
  const ids = Object.keys(state).map(Number).sort((a, b) => a - b);
  const types = Object.keys(requests).sort();
  let minAffinitySize = ids.length;
  const masks: number[][] = [];
  for (const mask of everySubMask(ids)) {
    const sum = (type: string, field: 'free' | 'allocatable'): number => mask.reduce((s, id) => s + (state[id]?.memoryMap[type]?.[field] ?? 0), 0);
    if (types.some((t) => sum(t, 'allocatable') < (requests[t] ?? 0))) continue;
    if (mask.length < minAffinitySize) minAffinitySize = mask.length;
    const single = mask.length === 1;
    if (single && (state[mask[0] ?? -1]?.cells.length ?? 0) > 1) continue;
    const clashes = !single && mask.some((id) => {
      const node = state[id];
      return node !== undefined && node.numberOfAssignments > 0 && (node.cells.length === 1 || !sameMask([...node.cells].sort((a, b) => a - b), mask));
    });
    if (clashes) continue;
    if (types.some((t) => sum(t, 'free') + reusableFor(view.reusable, mask, t) < (requests[t] ?? 0))) continue;
    masks.push(mask);
  }
  const hints: Record<string, TopologyHint[]> = {};
  for (const t of types) hints[t] = masks.map((numaNodes) => ({ numaNodes, preferred: numaNodes.length === minAffinitySize }));
  return hints;
}

/** Go's regenerateHints: a container that has its memory already (after a restart) asks for exactly that. */
export function regeneratedHints(share: MemoryShare, requests: MemoryRequests): Record<string, TopologyHint[]> | null {
  const have = sortedEntries(share.bytes);
  if (have.length !== Object.keys(requests).length) return null;
  if (have.some(([type, size]) => requests[type] !== size)) return null;
  return Object.fromEntries(have.map(([type]) => [type, [{ numaNodes: [...share.numaNodes], preferred: true }]]));
}

/** Go's findBestHint: preferred first, then the narrowest. */
function findBestHint(hints: readonly TopologyHint[]): TopologyHint | null {
  let best: TopologyHint | null = null;
  for (const h of hints) {
    if (best === null || (h.preferred && !best.preferred) || (h.preferred === best.preferred && isMaskNarrowerThan(h.numaNodes, best.numaNodes))) best = h;
  }
  return best;
}

function satisfies(state: MachineState, mask: readonly number[], requests: MemoryRequests): boolean {
  return Object.entries(requests).every(([t, size]) => mask.reduce((s, id) => s + (state[id]?.memoryMap[t]?.free ?? 0), 0) >= size);
}

export type MemoryAllocation = { ok: true; share: MemoryShare } | { ok: false; message: string };

/**
 * Go's staticPolicy.Allocate for one container of a Guaranteed pod. `affinity` is the topology
 * manager's (null numaNodes: none given).
 */
export function allocateMemory(view: PodMemoryView, requests: MemoryRequests, affinity: { numaNodes: number[] | null; preferred: boolean }): MemoryAllocation {
  let best: TopologyHint;
  if (affinity.numaNodes === null) {
    const found = findBestHint(calculateHints(view, requests).memory ?? []);
    if (found === null) return { ok: false, message: '[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available' };
    if (!found.preferred && affinity.preferred) return { ok: false, message: '[memorymanager] failed to find the default preferred hint' };
    best = found;
  } else {
    best = { numaNodes: affinity.numaNodes, preferred: affinity.preferred };
  }
  if (!satisfies(view.state, best.numaNodes, requests)) {
    const within = (calculateHints(view, requests).memory ?? []).filter((h) => isSubMask(best.numaNodes, h.numaNodes));
    const extended = findBestHint(within);
    if (extended === null) return { ok: false, message: '[memorymanager] failed to find NUMA nodes to extend the current topology hint' };
    if (!extended.preferred && best.preferred) return { ok: false, message: '[memorymanager] failed to find the extended preferred hint' };
    best = extended;
  }
  return { ok: true, share: { numaNodes: [...best.numaNodes], bytes: { ...requests } } };
}

/**
 * Go's updateInitContainersMemoryBlocks, for the whole pod once its containers have their shares: each
 * container after an init container takes the init container's memory on the same nodes first, and
 * the init container's share shrinks by as much, so the shares add up to what the pod holds.
 */
export function settlePodMemory(pod: Pod, shares: PodMemoryShares): PodMemoryShares {
  const out: PodMemoryShares = Object.fromEntries(Object.entries(shares).map(([n, s]) => [n, s && { numaNodes: s.numaNodes, bytes: { ...s.bytes } }]));
  const inits = (pod.spec.initContainers ?? []).map((c) => c.name);
  const order: Container[] = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  for (const container of order) {
    const share = out[container.name];
    if (share === undefined) continue;
    for (const [type, size] of sortedEntries(share.bytes)) {
      let left = size;
      for (const init of inits) {
        if (init === container.name || left === 0) break;
        const initShare = out[init];
        const held = initShare?.bytes[type] ?? 0;
        if (initShare === undefined || held === 0 || !sameMask(initShare.numaNodes, share.numaNodes)) continue;
        const taken = Math.min(held, left);
        initShare.bytes[type] = held - taken;
        left -= taken;
      }
    }
  }
  return out;
}

