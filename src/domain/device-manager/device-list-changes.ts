/**
 * A device list as its changes: what the journal records of a ListAndWatch answer and of every
 * device update after it. Each answer is the resource's whole list, but a plugin with many devices
 * changes a few at a time (a health flip); recording the whole list at each answer would make the
 * journal's cost grow with the list, not with what changed. The adapter's side keeps the last list
 * of each stream and sends the difference; the machines apply it to the list they hold.
 *
 * Lists are in id order with one entry per id (devicesFromList), and applying changes keeps them
 * so: the list a machine reaches is the very list the answer gave.
 */
import { sameJson } from '../same-json.js';
import { byDeviceId, type DeviceInventoryEntry } from './devices.js';

/** One resource's devices changed: those added or changed (whole), and the ids of those gone. */
export interface DeviceListChanges {
  upserted: DeviceInventoryEntry[];
  removed: string[];
}

/** Per resource: its devices' changes, or null when the resource itself is gone. A resource new to the receiver starts empty. */
export type DeviceInventoryChanges = Record<string, DeviceListChanges | null>;

/** What turns `previous` into `next`; null when they list the same devices (every field of each the same). */
export function deviceListChanges(previous: readonly DeviceInventoryEntry[], next: readonly DeviceInventoryEntry[]): DeviceListChanges | null {
  const before = new Map(previous.map((d) => [d.id, d]));
  const upserted: DeviceInventoryEntry[] = [];
  for (const d of next) {
    const was = before.get(d.id);
    before.delete(d.id);
    if (!was || !sameJson(was, d)) upserted.push(d);
  }
  const removed = [...before.keys()];
  return upserted.length === 0 && removed.length === 0 ? null : { upserted, removed };
}

/** `list` with `changes` applied, in id order. */
export function applyDeviceListChanges(list: readonly DeviceInventoryEntry[], changes: DeviceListChanges): DeviceInventoryEntry[] {
  if (changes.upserted.length === 0 && changes.removed.length === 0) return [...list];
  const devices = new Map(list.map((d) => [d.id, d]));
  for (const id of changes.removed) devices.delete(id);
  for (const d of changes.upserted) devices.set(d.id, d);
  return [...devices.values()].sort(byDeviceId);
}

/**
 * What turns `before` into `after`, per resource: a resource added (even with no device), one whose
 * list changed, one gone. A list kept by reference is not compared.
 */
export function deviceInventoryChanges(
  before: Readonly<Record<string, readonly DeviceInventoryEntry[]>>, after: Readonly<Record<string, readonly DeviceInventoryEntry[]>>,
): DeviceInventoryChanges {
  const changes: DeviceInventoryChanges = {};
  for (const name of Object.keys(before)) if (!Object.hasOwn(after, name)) changes[name] = null;
  for (const [name, list] of Object.entries(after)) {
    const was = Object.hasOwn(before, name) ? before[name] : undefined;
    if (was === list) continue;
    const changed = deviceListChanges(was ?? [], list);
    if (changed) changes[name] = changed;
    else if (!was) changes[name] = { upserted: [], removed: [] };
  }
  return changes;
}

/** `devices` with `changes` applied; resources keep their order, a new one comes last. */
export function applyDeviceInventoryChanges(
  devices: Readonly<Record<string, DeviceInventoryEntry[]>>, changes: DeviceInventoryChanges,
): Record<string, DeviceInventoryEntry[]> {
  const out: Record<string, DeviceInventoryEntry[]> = {};
  for (const [name, list] of Object.entries(devices)) {
    const changed = Object.hasOwn(changes, name) ? changes[name]! : undefined;
    if (changed === undefined) out[name] = list;
    else if (changed !== null) out[name] = applyDeviceListChanges(list, changed);
  }
  for (const [name, changed] of Object.entries(changes)) {
    if (changed !== null && !Object.hasOwn(devices, name)) out[name] = applyDeviceListChanges([], changed);
  }
  return out;
}
