/**
 * The CPU manager's static policy (Go's cpumanager policy_static.go): a container of a Guaranteed
 * pod whose cpu request is a whole number gets that many CPUs of its own; every other container
 * runs on the shared pool. Exclusive CPUs come from the assignable ones (every CPU no other
 * container holds, but the reserved), plus this pod's init containers' CPUs, which its app
 * containers reuse (init containers have finished by then). Hints (GetTopologyHints) tell the
 * topology manager which NUMA nodes could serve the request, the narrowest ones preferred.
 */
import { computePodQOS } from '../pod/qos.js';
import type { Container, Pod } from '../pod/types.js';
import { parseQuantity, quantityMilliValue, quantityValue } from '../resources/quantity.js';
import type { TopologyHint } from './admit.js';
import type { Assignments, PodAssignment } from './assignments.js';
import { CpuDetails, cpuShape, cpusPerCore } from './cpu-details.js';
import type { CpuInventory } from './cpu-inventory.js';
import { allCpus, exclusiveCpus } from './cpu-pool.js';
import { cpusWithout, sortedCpus } from './cpu-set.js';
import { takeByTopologyDistributed, takeByTopologyPacked, type TakeResult } from './cpu-take.js';

export const SMT_ALIGNMENT_ERROR = 'SMTAlignmentError';

/** Go's guaranteedCPUs: the whole CPUs a container of a Guaranteed pod asks for; 0 for anything else. */
export function guaranteedCpus(pod: Pod, container: Container): number {
  if (computePodQOS(pod) !== 'Guaranteed') return 0;
  const text = container.resources?.requests?.cpu;
  if (text === undefined) return 0;
  const q = parseQuantity(text);
  if (quantityValue(q) * 1000n !== quantityMilliValue(q)) return 0;
  return Number(quantityValue(q));
}

/** Go's podGuaranteedCPUs: the larger of the biggest init container's and the app containers' sum. */
export function podGuaranteedCpus(pod: Pod): number {
  const init = Math.max(0, ...(pod.spec.initContainers ?? []).map((c) => guaranteedCpus(pod, c)));
  const app = pod.spec.containers.reduce((sum, c) => sum + guaranteedCpus(pod, c), 0);
  return Math.max(init, app);
}

const isInitContainer = (pod: Pod, name: string): boolean => (pod.spec.initContainers ?? []).some((c) => c.name === name);

/** This pod's init containers' CPUs its app containers have not taken yet (Go's cpusToReuse). */
export function reusableCpus(pod: Pod, podAssignment: PodAssignment): number[] {
  const entries = Object.entries(podAssignment);
  const fromInit = entries.filter(([name]) => isInitContainer(pod, name)).flatMap(([, a]) => a.cpus ?? []);
  const takenByApps = entries.filter(([name]) => !isInitContainer(pod, name)).flatMap(([, a]) => a.cpus ?? []);
  return cpusWithout(sortedCpus(fromInit), takenByApps);
}

/** Go's GetAvailableCPUs: the shared pool but the reserved CPUs (the default set minus reserved). */
export function availableCpus(inventory: CpuInventory, others: Assignments, podAssignment: PodAssignment): number[] {
  const held = exclusiveCpus({ ...others, '': podAssignment });
  return cpusWithout(allCpus(inventory), [...held, ...inventory.reserved]);
}

function take(inventory: CpuInventory, from: readonly number[], numCpus: number): TakeResult {
  const { options, topology } = inventory;
  if (!options.distributeCpusAcrossNuma) return takeByTopologyPacked(topology, from, numCpus);
  const groupSize = options.fullPcpusOnly ? cpusPerCore(cpuShape(topology)) : 1;
  return takeByTopologyDistributed(topology, from, numCpus, groupSize);
}

/** Go's allocateCPUs: the CPUs of the affinity's NUMA nodes first, the rest from anywhere assignable. */
export function allocateCpus(inventory: CpuInventory, assignable: readonly number[], numCpus: number, affinity: TopologyHint | null): TakeResult {
  let result: number[] = [];
  if (affinity !== null) {
    const aligned = CpuDetails.of(inventory.topology).keepOnly(assignable).cpusInNumaNodes(...affinity.numaNodes);
    const fromAligned = take(inventory, aligned, Math.min(numCpus, aligned.length));
    if (!fromAligned.ok) return fromAligned;
    result = fromAligned.cpus;
  }
  const rest = take(inventory, cpusWithout(assignable, result), numCpus - result.length);
  if (!rest.ok) return rest;
  return { ok: true, cpus: sortedCpus([...result, ...rest.cpus]) };
}

export type StaticAllocation = { ok: true; cpus: number[] | null } | { ok: false; reason: string; message: string };

/**
 * Go's staticPolicy.Allocate for one container: null when it runs on the shared pool, the CPUs it
 * already had (a restart), new exclusive CPUs, or a refusal: SMTAlignmentError when full-pcpus-only
 * wants whole cores, UnexpectedAdmissionError when too few CPUs are free.
 */
export function allocateStatic(inventory: CpuInventory, pod: Pod, container: Container, others: Assignments, podAssignment: PodAssignment, affinity: TopologyHint | null): StaticAllocation {
  const numCpus = guaranteedCpus(pod, container);
  if (numCpus === 0) return { ok: true, cpus: null };
  const perCore = cpusPerCore(cpuShape(inventory.topology));
  if (inventory.options.fullPcpusOnly && numCpus % perCore !== 0) {
    return { ok: false, reason: SMT_ALIGNMENT_ERROR, message: `SMT Alignment Error: requested ${numCpus} cpus not multiple cpus per core = ${perCore}` };
  }
  const had = podAssignment[container.name]?.cpus;
  if (had) return { ok: true, cpus: had };
  const assignable = sortedCpus([...availableCpus(inventory, others, podAssignment), ...reusableCpus(pod, podAssignment)]);
  const taken = allocateCpus(inventory, assignable, numCpus, affinity);
  if (!taken.ok) return { ok: false, reason: 'UnexpectedAdmissionError', message: taken.message };
  return { ok: true, cpus: taken.cpus };
}

/** Every combination of the NUMA nodes, as Go's bitmask.IterateBitMasks walks them (by size, then in order). */
function numaMasks(nodes: readonly number[]): number[][] {
  const masks: number[][] = [];
  const walk = (start: number, picked: number[], size: number) => {
    if (picked.length === size) {
      masks.push(picked);
      return;
    }
    for (let i = start; i < nodes.length; i++) walk(i + 1, [...picked, nodes[i]!], size);
  };
  for (let size = 1; size <= nodes.length; size++) walk(0, [], size);
  return masks;
}

/** Go's generateCPUTopologyHints: every NUMA combination with room for the request; the narrowest preferred. */
export function cpuTopologyHints(inventory: CpuInventory, available: readonly number[], reusable: readonly number[], request: number): TopologyHint[] {
  const details = CpuDetails.of(inventory.topology);
  const nodes = details.numaNodes();
  let minAffinitySize = nodes.length;
  const hints: TopologyHint[] = [];
  for (const mask of numaMasks(nodes)) {
    if (details.cpusInNumaNodes(...mask).length >= request && mask.length < minAffinitySize) minAffinitySize = mask.length;
    const numaOf = (cpu: number) => details.info(cpu)?.numaNode ?? -1;
    if (reusable.some((c) => !mask.includes(numaOf(c)))) continue;
    const matching = reusable.length + available.filter((c) => mask.includes(numaOf(c))).length;
    if (matching < request) continue;
    hints.push({ numaNodes: mask, preferred: false });
  }
  return hints.map((h) => ({ ...h, preferred: h.numaNodes.length === minAffinitySize }));
}

/** Go's GetTopologyHints for one container: none when it wants no exclusive CPUs; its own again after a restart. */
export function containerCpuHints(inventory: CpuInventory, pod: Pod, container: Container, others: Assignments, podAssignment: PodAssignment): Record<string, TopologyHint[]> {
  const requested = guaranteedCpus(pod, container);
  if (requested === 0) return {};
  const had = podAssignment[container.name]?.cpus;
  // A different count than asked: an empty list, a preference no policy but best-effort admits.
  if (had) return { cpu: had.length === requested ? cpuTopologyHints(inventory, had, [], requested) : [] };
  return { cpu: cpuTopologyHints(inventory, availableCpus(inventory, others, podAssignment), reusableCpus(pod, podAssignment), requested) };
}

/** Go's GetPodTopologyHints: the pod's whole request at once (the topology manager's pod scope). */
export function podCpuHints(inventory: CpuInventory, pod: Pod, others: Assignments, podAssignment: PodAssignment): Record<string, TopologyHint[]> {
  const requested = podGuaranteedCpus(pod);
  if (requested === 0) return {};
  let assigned: number[] = [];
  for (const container of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    const had = podAssignment[container.name]?.cpus;
    if (!had) continue;
    if (had.length !== guaranteedCpus(pod, container)) return { cpu: [] };
    assigned = sortedCpus([...assigned, ...had]);
  }
  if (assigned.length === requested) return { cpu: cpuTopologyHints(inventory, assigned, [], requested) };
  const reusable = sortedCpus([...reusableCpus(pod, podAssignment), ...assigned]);
  return { cpu: cpuTopologyHints(inventory, availableCpus(inventory, others, podAssignment), reusable, requested) };
}
