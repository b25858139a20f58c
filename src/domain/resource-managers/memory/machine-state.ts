/**
 * The Static memory manager's view of the machine (Go: memorymanager/state NUMANodeMap and the static
 * policy's getDefaultMachineState): per NUMA node, per memory resource (`memory`, `hugepages-<size>`),
 * its total, what is reserved for the system, what pods may have, what they hold and what is free;
 * and the node's group (`cells`): the nodes it shares multi-node allocations with.
 *
 * The state is never stored on its own: it is the default state minus the containers' assignments,
 * recomputed the way Go's validateState checks a restored one. Replayable by construction.
 */
import { binaryQuantity } from '../../node-status/quantity-format.js';

/** One NUMA node's memory as the host reports it (cAdvisor's topology: sysfs nodeN/meminfo and hugepages). */
export interface NumaNodeMemory {
  id: number;
  /** MemTotal of the node, bytes. */
  memoryBytes: number;
  /** Every hugepage size the kernel offers on the node, even with no page. */
  hugepages: { pageSizeKiB: number; pages: number }[];
}

/** What the Static policy allocates from: the nodes, and per node the reservedMemory (bytes per resource). */
export interface MemoryInventory {
  /** Sorted by id. */
  nodes: NumaNodeMemory[];
  systemReserved: Record<number, Record<string, number>>;
}

export interface MemoryTable {
  total: number;
  systemReserved: number;
  allocatable: number;
  reserved: number;
  free: number;
}

export interface NumaNodeState {
  numberOfAssignments: number;
  memoryMap: Record<string, MemoryTable>;
  cells: number[];
}

export type MachineState = Record<number, NumaNodeState>;

/** A container's memory of one resource on a set of NUMA nodes (Go's state.Block). */
export interface MemoryBlock {
  numaAffinity: number[];
  type: string;
  size: number;
}

/** Go's HugePageResourceName: `hugepages-` and the page size as a binary quantity (2048 KiB → `hugepages-2Mi`). */
export function hugepageResourceName(pageSizeKiB: number): string {
  return `hugepages-${binaryQuantity(pageSizeKiB * 1024)}`;
}

export function isMemoryResource(name: string): boolean {
  return name === 'memory' || name.startsWith('hugepages-');
}

/** Go's getDefaultMachineState: nothing allocated; hugepages are taken out of the node's regular memory. */
export function defaultMachineState(inventory: MemoryInventory): MachineState {
  const state: MachineState = {};
  for (const node of inventory.nodes) {
    const reserved = inventory.systemReserved[node.id] ?? {};
    const memoryMap: Record<string, MemoryTable> = {};
    let inHugepages = 0;
    for (const hp of node.hugepages) {
      const name = hugepageResourceName(hp.pageSizeKiB);
      const total = hp.pages * hp.pageSizeKiB * 1024;
      const systemReserved = reserved[name] ?? 0;
      memoryMap[name] = { total, systemReserved, allocatable: total - systemReserved, reserved: 0, free: total - systemReserved };
      inHugepages += total;
    }
    const systemReserved = reserved.memory ?? 0;
    const allocatable = node.memoryBytes - systemReserved - inHugepages;
    memoryMap.memory = { total: node.memoryBytes, systemReserved, allocatable, reserved: 0, free: allocatable };
    state[node.id] = { numberOfAssignments: 0, memoryMap, cells: [node.id] };
  }
  return state;
}

export function cloneMachineState(state: MachineState): MachineState {
  return Object.fromEntries(
    Object.entries(state).map(([id, node]) => [
      id,
      {
        numberOfAssignments: node.numberOfAssignments,
        cells: [...node.cells],
        memoryMap: Object.fromEntries(Object.entries(node.memoryMap).map(([name, table]) => [name, { ...table }])),
      },
    ]),
  );
}

/**
 * Go's updateMachineState, in place: every node of the affinity counts one more assignment and joins
 * the group; `size` is taken from the nodes' free memory in id order.
 */
export function takeMemory(state: MachineState, affinity: readonly number[], type: string, size: number): void {
  let left = size;
  for (const id of affinity) {
    const node = state[id];
    if (node === undefined) continue;
    node.numberOfAssignments++;
    node.cells = [...affinity];
    const table = node.memoryMap[type];
    if (left === 0 || table === undefined || table.free <= 0) continue;
    const taken = Math.min(table.free, left);
    table.reserved += taken;
    table.free -= taken;
    left -= taken;
  }
}
