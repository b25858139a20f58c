/**
 * What admission allocates from, as the syncLoop knows it (its state `inventory`): the devices the
 * device plugins serve, the CPUs of the static CPU manager, the NUMA memory of the Static memory
 * manager and the topology manager's settings. Built at start-up by the container manager's start
 * (startKubelet.resourceManagers); the device entries follow the plugins.
 */
import type { CpuInventory } from './cpu-inventory.js';

export interface DeviceInventoryEntry { id: string; healthy: boolean; numaNodes: number[] }

/** The Static memory manager's NUMA nodes and reserved memory (the memory manager's owner fills it in). */
export interface MemoryInventory {
  numaNodes: number[];
}

export interface ResourceInventory {
  /** Per extended resource a device plugin serves (filled through the `devices.changed` event). */
  devices: Record<string, DeviceInventoryEntry[]>;
  /** Static CPU manager: null with the none policy. */
  cpu: CpuInventory | null;
  /** Static memory manager: null with the None policy. */
  memory: MemoryInventory | null;
  /** Topology manager settings. */
  topology: { policy: string; scope: 'container' | 'pod'; options: Record<string, string> };
}

/** No resource manager acting: what a syncLoop started without the container manager's start has. */
export const EMPTY_INVENTORY: ResourceInventory = {
  devices: {},
  cpu: null,
  memory: null,
  topology: { policy: 'none', scope: 'container', options: {} },
};
