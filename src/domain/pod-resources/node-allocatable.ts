/**
 * What the node can give through its resource managers, as the pod resources API reports it
 * (Go's GetAllocatableDevices, GetAllocatableCPUs, GetAllocatableMemory): every device a plugin
 * serves, healthy or not (the answer keeps the healthy ones), the CPUs the static CPU manager may
 * hand out (none with the `none` policy), and the memory the Static memory manager may pin, per
 * NUMA node and kind (none with the `None` policy).
 */
import type { CpuInventory } from '../resource-managers/cpu-inventory.js';
import type { DeviceInventoryEntry, ResourceInventory } from '../resource-managers/inventory.js';
import { defaultMachineState, type MemoryInventory } from '../resource-managers/memory/machine-state.js';

export interface NodeAllocatable {
  devices: Readonly<Record<string, readonly DeviceInventoryEntry[]>>;
  cpus: readonly number[];
  memory: readonly NumaMemory[];
}

/** One NUMA node's allocatable memory of one kind ("memory", "hugepages-2Mi"), in bytes. */
export interface NumaMemory { numaNode: number; type: string; bytes: number }

export const NOTHING_ALLOCATABLE: NodeAllocatable = { devices: {}, cpus: [], memory: [] };

/**
 * From the syncLoop's inventory: the devices as the plugins serve them; with the static policy,
 * every CPU but the reserved ones (Go's static policy GetAllocatableCPUs); with `none`, no CPU;
 * with the Static memory manager, each NUMA node's allocatable memory of each kind (Go's
 * getAllocatableMemory: what is left after the system's reservation, kinds with none left out).
 */
export function nodeAllocatable(inventory: ResourceInventory): NodeAllocatable {
  return { devices: inventory.devices, cpus: allocatableCpus(inventory.cpu), memory: allocatableMemory(inventory.memory) };
}

function allocatableCpus(cpu: CpuInventory | null): number[] {
  if (!cpu) return [];
  const reserved = new Set(cpu.reserved);
  return cpu.topology.cpus.map((c) => c.id).filter((id) => !reserved.has(id));
}

function allocatableMemory(memory: MemoryInventory | null): NumaMemory[] {
  if (!memory) return [];
  return Object.entries(defaultMachineState(memory)).flatMap(([node, state]) =>
    Object.entries(state.memoryMap)
      .filter(([, table]) => table.allocatable > 0)
      .map(([type, table]) => ({ numaNode: Number(node), type, bytes: table.allocatable })));
}
