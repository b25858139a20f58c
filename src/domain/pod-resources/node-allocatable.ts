/**
 * What the node can give through its resource managers, as the pod resources API reports it
 * (Go's GetAllocatableDevices, GetAllocatableCPUs, GetAllocatableMemory): every device a plugin
 * serves, healthy or not (the answer keeps the healthy ones), the CPUs the static CPU manager may
 * hand out (none with the `none` policy), and the memory the Static memory manager may pin, per
 * NUMA node and kind (none with the `None` policy).
 */
import type { DeviceInventoryEntry } from './assignment-types.js';

export interface NodeAllocatable {
  devices: Readonly<Record<string, readonly DeviceInventoryEntry[]>>;
  cpus: readonly number[];
  memory: readonly NumaMemory[];
}

/** One NUMA node's allocatable memory of one kind ("memory", "hugepages-2Mi"), in bytes. */
export interface NumaMemory { numaNode: number; type: string; bytes: number }

export const NOTHING_ALLOCATABLE: NodeAllocatable = { devices: {}, cpus: [], memory: [] };
