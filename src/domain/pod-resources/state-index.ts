/**
 * Lookups the pod resources answers make, built once per state instead of searched per item: each
 * allocatable device's NUMA nodes by resource and device ID, and the known pods by namespace and
 * name. A List over many pods holding many devices is then linear in what it answers.
 */
import type { Pod } from '../pod/types.js';
import type { DeviceInventoryEntry } from '../resource-managers/inventory.js';
import type { KnownPod, PodResourcesState } from './answers.js';

export interface StateIndex {
  readonly state: PodResourcesState;
  /** resource name → device ID → the NUMA nodes its plugin reported. */
  readonly numaNodes: ReadonlyMap<string, ReadonlyMap<string, DeviceInventoryEntry['numaNodes']>>;
  /** `namespace/name` → the known pods of that name, in the state's order. */
  readonly byName: ReadonlyMap<string, readonly KnownPod[]>;
}

export const namespaceOf = (pod: Pod): string => pod.metadata.namespace ?? 'default';
export const nameKey = (namespace: string, name: string): string => `${namespace}/${name}`;

export function indexState(state: PodResourcesState): StateIndex {
  const numaNodes = new Map<string, Map<string, DeviceInventoryEntry['numaNodes']>>();
  for (const [resource, devices] of Object.entries(state.allocatable.devices)) {
    numaNodes.set(resource, new Map(devices.map((d) => [d.id, d.numaNodes])));
  }
  const byName = new Map<string, KnownPod[]>();
  for (const known of state.pods) {
    const key = nameKey(namespaceOf(known.pod), known.pod.metadata.name);
    const named = byName.get(key);
    if (named) named.push(known);
    else byName.set(key, [known]);
  }
  return { state, numaNodes, byName };
}
