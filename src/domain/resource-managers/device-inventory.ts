/**
 * The device manager's news folded into what admission allocates from: every resource a plugin
 * serves now, with its devices (healthy or not). A resource whose plugin stayed away past the
 * grace period is gone from it; the devices containers hold stay theirs (the assignments).
 */
import type { DeviceInventoryEntry, ResourceInventory } from './inventory.js';

/** From the device manager to the syncLoop: the devices of every resource now. */
export interface DevicesChangedEvent { type: 'devices.changed'; devices: Record<string, DeviceInventoryEntry[]> }

export function withDevices(inventory: ResourceInventory, event: DevicesChangedEvent): ResourceInventory {
  return { ...inventory, devices: event.devices };
}
