/**
 * The device manager's news folded into what admission allocates from: every resource a plugin
 * serves now, with its devices (healthy or not). A resource whose plugin stayed away past the
 * grace period is gone from it; the devices containers hold stay theirs (the assignments).
 */
import { applyDeviceInventoryChanges, type DeviceInventoryChanges } from '../device-manager/device-list-changes.js';
import type { ResourceInventory } from './inventory.js';

/**
 * From the device manager to the syncLoop: how the devices of each resource changed since its last
 * such event. The syncLoop hears every one from the start (both are spawned before the runtime's
 * first answer, which starts the device manager), so its devices follow the device manager's.
 */
export interface DevicesChangedEvent { type: 'devices.changed'; changes: DeviceInventoryChanges }

export function withDevices(inventory: ResourceInventory, event: DevicesChangedEvent): ResourceInventory {
  return { ...inventory, devices: applyDeviceInventoryChanges(inventory.devices, event.changes) };
}
