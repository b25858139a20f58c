/**
 * The resource managers' assignments and device inventory, as the shared contract of the resource
 * managers defines them in src/domain/resource-managers/ (assignments.ts, inventory.ts). A copy of
 * the shapes the pod resources API reads, until those files exist on this branch; then this file
 * re-exports them.
 */

/** What the resource managers gave one container at admission. */
export interface ContainerAssignment {
  /** Device IDs per extended resource name (device manager). */
  devices?: Record<string, string[]>;
  /** Exclusive CPU ids, sorted (static CPU manager); absent: the shared pool. */
  cpus?: number[];
  /** NUMA node ids its memory is pinned to (Static memory manager), and bytes per resource ("memory", "hugepages-2Mi"). */
  memory?: { numaNodes: number[]; bytes: Record<string, number> };
}

/** By container name (init containers too). */
export type PodAssignment = Record<string, ContainerAssignment>;

/** Everything assigned now, by pod uid. */
export type Assignments = Record<string, PodAssignment>;

export interface DeviceInventoryEntry { id: string; healthy: boolean; numaNodes: number[] }
