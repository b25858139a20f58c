/**
 * The devices of each extended resource a device plugin serves, as the device manager keeps them
 * (Go: ManagerImpl's allDevices, healthyDevices and unhealthyDevices, genericDeviceUpdateCallback,
 * markResourceUnhealthy and GetCapacity), and what the Node reports of them: capacity counts every
 * device, allocatable the healthy ones. A resource whose plugin went away and stayed away past the
 * grace period is reported with 0 of each from then on, as Go sets a removed resource's capacity to
 * 0 rather than dropping it, so the Node still says a device plugin managed it.
 */
import type { DeviceInventoryEntry } from '../resource-managers/inventory.js';
import { DEVICE_HEALTHY } from './device-plugin-api.js';
import { byCodeUnits } from '../text/code-unit-order.js';

/** One device as admission allocates from it (the resource managers' inventory entry). */
export type { DeviceInventoryEntry } from '../resource-managers/inventory.js';

/** A device as ListAndWatch sends it (the generated message's fields). */
export interface ListedDevice {
  ID: string;
  health: string;
  topology?: { nodes: { ID: string | number }[] } | null;
}

/** Id order: the order of every device list kept. */
export const byDeviceId = (a: DeviceInventoryEntry, b: DeviceInventoryEntry): number => byCodeUnits(a.id, b.id);

/**
 * A ListAndWatch answer as the whole list of the resource's devices, in id order (Go replaces its
 * sets with each answer). An id listed twice is one device, the later entry's, as Go's allDevices
 * map keeps it: a list is a set, so its changes (device-list-changes.ts) say all of it.
 */
export function devicesFromList(devices: readonly ListedDevice[]): DeviceInventoryEntry[] {
  const listed = new Map<string, DeviceInventoryEntry>();
  for (const d of devices) {
    listed.set(d.ID, {
      id: d.ID,
      healthy: d.health === DEVICE_HEALTHY,
      numaNodes: [...new Set((d.topology?.nodes ?? []).map((n) => Number(n.ID)))].sort((a, b) => a - b),
    });
  }
  return [...listed.values()].sort(byDeviceId);
}

/** Two answers that list the same devices with the same health and topology, in the same order. */
export function sameListedDevices(a: readonly ListedDevice[], b: readonly ListedDevice[]): boolean {
  if (a.length !== b.length) return false;
  const topology = (d: ListedDevice) => (d.topology?.nodes ?? []).map((n) => String(n.ID)).join(',');
  return a.every((d, i) => {
    const e = b[i]!;
    return d.ID === e.ID && d.health === e.health && topology(d) === topology(e);
  });
}

/** The healthy devices' ids per resource: the checkpoint's registered devices. */
export function healthyDeviceIds(devices: Readonly<Record<string, readonly DeviceInventoryEntry[]>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(devices).map(([name, list]) => [name, list.filter((d) => d.healthy).map((d) => d.id)]));
}

/** markResourceUnhealthy: the plugin's stream ended; its devices stay, none healthy. */
export function allUnhealthy(devices: readonly DeviceInventoryEntry[]): DeviceInventoryEntry[] {
  return devices.map((d) => ({ ...d, healthy: false }));
}

export interface ExtendedResourceCount {
  capacity: number;
  allocatable: number;
}

/** GetCapacity for the Node's status: per resource, all devices and the healthy ones; a removed resource 0 and 0. */
export function extendedResourceCounts(
  devices: Readonly<Record<string, readonly DeviceInventoryEntry[]>>, removed: readonly string[],
): Record<string, ExtendedResourceCount> {
  const out: Record<string, ExtendedResourceCount> = {};
  for (const name of removed) out[name] = { capacity: 0, allocatable: 0 };
  for (const [name, list] of Object.entries(devices)) {
    out[name] = { capacity: list.length, allocatable: list.filter((d) => d.healthy).length };
  }
  return out;
}
