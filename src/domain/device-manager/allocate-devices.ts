/**
 * Which devices a container gets, decided at admission without any I/O (Go: ManagerImpl's
 * devicesToAllocate and filterByAffinity in pkg/kubelet/cm/devicemanager/manager.go, v1.26):
 * - a container that already holds devices of the resource keeps them (a restart re-admits it);
 *   holding a different number than it asks for is refused;
 * - a resource no plugin registered is refused ("can't allocate unregistered device");
 * - the devices of the pod's init containers are taken first (they are done when it runs);
 * - otherwise healthy devices no other container holds: too few is Go's "requested number of
 *   devices unavailable" error; with a topology affinity, devices on its NUMA nodes come first, then
 *   those on other nodes (the fuller nodes first), then those without topology.
 * Go's sets have no order; here every choice is in device id order, so a replay decides the same.
 * Go asks the plugin's GetPreferredAllocation here; admission being pure, kubelet-ts does not.
 */
import type { DeviceInventoryEntry } from './devices.js';

export interface DevicesToAllocateInput {
  podUid: string;
  containerName: string;
  resource: string;
  required: number;
  /** What this container holds of the resource already (an earlier admission of the same pod). */
  held: readonly string[] | undefined;
  /** The devices of this pod's init containers, reusable by the next container. */
  reusable: readonly string[];
  /** The resource's devices; undefined when no plugin registered it. */
  devices: readonly DeviceInventoryEntry[] | undefined;
  /** Every device of the resource any container holds (this pod's init containers too). */
  inUse: ReadonlySet<string>;
  /** The NUMA nodes of the topology manager's merged affinity; null: none. */
  affinity: readonly number[] | null;
}

/** Devices to allocate (empty: nothing new, the container keeps what it holds), or Go's error text. */
export type DevicesToAllocate = { ok: true; devices: string[] } | { ok: false; error: string };

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function devicesToAllocate(input: DevicesToAllocateInput): DevicesToAllocate {
  const { podUid, containerName, resource, required } = input;
  if (input.held !== undefined) {
    if (input.held.length !== required) {
      return { ok: false, error: `pod "${podUid}" container "${containerName}" changed request for resource "${resource}" from ${input.held.length} to ${required}` };
    }
    return { ok: true, devices: [] };
  }
  if (required === 0) return { ok: true, devices: [] };
  if (input.devices === undefined) return { ok: false, error: `can't allocate unregistered device ${resource}` };

  const allocated: string[] = [];
  const take = (from: readonly string[]): boolean => {
    for (const id of from) {
      if (allocated.length === required) break;
      if (!allocated.includes(id)) allocated.push(id);
    }
    return allocated.length === required;
  };
  if (take([...input.reusable].sort(byId))) return { ok: true, devices: allocated };

  const available = input.devices.filter((d) => d.healthy && !input.inUse.has(d.id) && !allocated.includes(d.id));
  const needed = required - allocated.length;
  if (available.length < needed) {
    return { ok: false, error: `requested number of devices unavailable for ${resource}. Requested: ${needed}, Available: ${available.length}` };
  }
  const { aligned, unaligned, noAffinity } = filterByAffinity(available, input.devices, input.affinity);
  if (take(aligned) || take(unaligned) || take(noAffinity)) return { ok: true, devices: allocated };
  return { ok: false, error: `unexpectedly allocated less resources than required. Requested: ${required}, Got: ${allocated.length}` };
}

/**
 * filterByAffinity: the available devices in three lists. Without an affinity, or when no device of
 * the resource has a topology, all are "no affinity". Otherwise each device goes to the list of the
 * first of its NUMA nodes in Go's order: nodes of the affinity (fewer devices first), other nodes
 * (more devices first), then the devices without topology.
 */
export function filterByAffinity(
  available: readonly DeviceInventoryEntry[], all: readonly DeviceInventoryEntry[], affinity: readonly number[] | null,
): { aligned: string[]; unaligned: string[]; noAffinity: string[] } {
  const ids = available.map((d) => d.id).sort(byId);
  if (affinity === null || !all.some((d) => d.numaNodes.length > 0)) return { aligned: [], unaligned: [], noAffinity: ids };
  const WITHOUT = -1;
  const perNode = new Map<number, Set<string>>();
  for (const d of available) {
    for (const n of d.numaNodes.length > 0 ? d.numaNodes : [WITHOUT]) {
      if (!perNode.has(n)) perNode.set(n, new Set());
      perNode.get(n)!.add(d.id);
    }
  }
  const inAffinity = (n: number) => affinity.includes(n);
  const count = (n: number) => perNode.get(n)!.size;
  const nodes = [...perNode.keys()].sort((a, b) => {
    if (inAffinity(a) && inAffinity(b)) return count(a) - count(b) || a - b;
    if (inAffinity(a)) return -1;
    if (inAffinity(b)) return 1;
    if (a === WITHOUT) return 1;
    if (b === WITHOUT) return -1;
    return count(b) - count(a) || a - b;
  });
  const out = { aligned: [] as string[], unaligned: [] as string[], noAffinity: [] as string[] };
  for (const n of nodes) {
    for (const id of [...perNode.get(n)!].sort(byId)) {
      if ([...out.aligned, ...out.unaligned, ...out.noAffinity].includes(id)) continue;
      if (n === WITHOUT) out.noAffinity.push(id);
      else if (inAffinity(n)) out.aligned.push(id);
      else out.unaligned.push(id);
    }
  }
  return out;
}

export interface TopologyHintOfDevices { numaNodes: number[]; preferred: boolean }

/**
 * generateDeviceTopologyHints: every set of the machine's NUMA nodes (smallest first) on which
 * enough devices are available (with every reusable device on it); preferred when no smaller set
 * could hold the request among all the resource's devices.
 */
export function deviceTopologyHints(
  machineNumaNodes: readonly number[], all: readonly DeviceInventoryEntry[], available: readonly string[], reusable: readonly string[], request: number,
): TopologyHintOfDevices[] {
  const byIdMap = new Map(all.map((d) => [d.id, d]));
  const onMask = (mask: number[], id: string) => (byIdMap.get(id)?.numaNodes ?? []).some((n) => mask.includes(n));
  let minAffinitySize = machineNumaNodes.length;
  const hints: TopologyHintOfDevices[] = [];
  for (const mask of numaNodeMasks(machineNumaNodes)) {
    const inMask = all.filter((d) => onMask(mask, d.id)).length;
    if (inMask >= request && mask.length < minAffinitySize) minAffinitySize = mask.length;
    let matching = 0;
    let fits = true;
    for (const id of reusable) {
      const device = byIdMap.get(id);
      if (!device || device.numaNodes.length === 0) continue;
      if (!onMask(mask, id)) {
        fits = false;
        break;
      }
      matching++;
    }
    if (!fits) continue;
    matching += available.filter((id) => onMask(mask, id)).length;
    if (matching >= request) hints.push({ numaNodes: mask, preferred: false });
  }
  return hints.map((h) => ({ ...h, preferred: h.numaNodes.length === minAffinitySize }));
}

/** bitmask.IterateBitMasks: every non-empty subset, by size, each size in lexicographic order. */
export function numaNodeMasks(nodes: readonly number[]): number[][] {
  const sorted = [...nodes].sort((a, b) => a - b);
  const out: number[][] = [];
  const choose = (start: number, size: number, acc: number[]) => {
    if (acc.length === size) {
      out.push([...acc]);
      return;
    }
    for (let i = start; i < sorted.length; i++) choose(i + 1, size, [...acc, sorted[i]!]);
  };
  for (let size = 1; size <= sorted.length; size++) choose(0, size, []);
  return out;
}
