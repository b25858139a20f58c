/**
 * The topology manager's and the memory manager's part of the resource managers' start (Go:
 * topologymanager.NewManager and memorymanager.NewManager, built with the container manager): the
 * topology settings with the machine's NUMA nodes, and the Static memory manager's inventory. Pure:
 * the NUMA facts come from the host through a port.
 */
import type { KubeletConfiguration } from '../config/types.js';
import type { MemoryInventory } from './memory/machine-state.js';
import { memoryReservationError, reservedByNode } from './memory/reserved-memory.js';
import { MEMORY_POLICY_STATIC } from './memory/restore.js';
import type { NumaNodeFacts } from './numa-node.js';
import type { TopologyPolicyName, TopologySettings } from './topology/hint.js';
import { parsePolicyOptions } from './topology/policy-options.js';

/** Go's maxAllowableNUMANodes: a policy other than none refuses machines with more NUMA nodes. */
export const MAX_ALLOWABLE_NUMA_NODES = 8;

export interface NumaInventoryInput {
  config: KubeletConfiguration;
  /** Sorted by id. */
  nodes: NumaNodeFacts[];
  memoryCapacityBytes: number;
}

export type NumaInventory = { ok: true; topology: TopologySettings; memory: MemoryInventory | null } | { ok: false; message: string };

export function numaInventory({ config: c, nodes, memoryCapacityBytes }: NumaInventoryInput): NumaInventory {
  // The configuration was validated: the policy and scope are among Go's values.
  const policy = c.topologyManagerPolicy as TopologyPolicyName;
  if (policy !== 'none' && nodes.length > MAX_ALLOWABLE_NUMA_NODES) {
    return { ok: false, message: `unsupported on machines with more than ${MAX_ALLOWABLE_NUMA_NODES} NUMA Nodes` };
  }
  // Go reads the distances only when an option needs them.
  const distances = parsePolicyOptions(c.topologyManagerPolicyOptions).preferClosestNuma ? Object.fromEntries(nodes.map((n) => [n.id, n.distances])) : {};
  const topology: TopologySettings = {
    policy,
    scope: c.topologyManagerScope === 'pod' ? 'pod' : 'container',
    options: c.topologyManagerPolicyOptions,
    numaNodes: nodes.map((n) => n.id),
    distances,
  };
  if (c.memoryManagerPolicy !== MEMORY_POLICY_STATIC) return { ok: true, topology, memory: null };
  const problem = memoryReservationError({
    numaNodes: topology.numaNodes, memoryCapacityBytes, kubeReserved: c.kubeReserved, systemReserved: c.systemReserved, evictionHard: c.evictionHard, reservedMemory: c.reservedMemory,
  });
  if (problem !== null) return { ok: false, message: problem };
  return {
    ok: true,
    topology,
    memory: { nodes: nodes.map(({ id, memoryBytes, hugepages }) => ({ id, memoryBytes, hugepages })), systemReserved: reservedByNode(c.reservedMemory) },
  };
}
