import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyDeviceInventoryChanges, applyDeviceListChanges, deviceInventoryChanges, deviceListChanges,
} from '../../../src/domain/device-manager/device-list-changes.js';
import { devicesFromList, type DeviceInventoryEntry } from '../../../src/domain/device-manager/devices.js';

const dev = (id: string, healthy = true, numaNodes: number[] = []): DeviceInventoryEntry => ({ id, healthy, numaNodes });

describe('deviceListChanges', () => {
  it('gives every device as upserted against no device (a stream\'s first answer)', () => {
    expect(deviceListChanges([], [dev('a'), dev('b')])).toEqual({ upserted: [dev('a'), dev('b')], removed: [] });
  });

  it('gives only the device whose health flipped', () => {
    expect(deviceListChanges([dev('a'), dev('b'), dev('c')], [dev('a'), dev('b', false), dev('c')])).toEqual({ upserted: [dev('b', false)], removed: [] });
  });

  it('gives a device whose topology changed, and the ids of those gone', () => {
    expect(deviceListChanges([dev('a', true, [0]), dev('b'), dev('c')], [dev('a', true, [1]), dev('c')])).toEqual({ upserted: [dev('a', true, [1])], removed: ['b'] });
  });

  it('is null for the same devices, and for none against none', () => {
    expect(deviceListChanges([dev('a'), dev('b', false, [0])], [dev('a'), dev('b', false, [0])])).toBeNull();
    expect(deviceListChanges([], [])).toBeNull();
  });
});

describe('applyDeviceListChanges', () => {
  it('removes, flips and adds, keeping id order', () => {
    expect(applyDeviceListChanges([dev('a'), dev('b'), dev('d')], { upserted: [dev('c'), dev('a', false)], removed: ['d'] }))
      .toEqual([dev('a', false), dev('b'), dev('c')]);
  });

  it('empties a list whose every device went', () => {
    expect(applyDeviceListChanges([dev('a'), dev('b')], { upserted: [], removed: ['a', 'b'] })).toEqual([]);
  });

  // The promise the journal relies on: the list held after each answer's changes is the answer's list.
  it('reaches every answer of a stream from the one before, as the whole list would', () => {
    const listed = fc.array(fc.record({
      ID: fc.constantFrom('a', 'b', 'c', 'd', 'e'), health: fc.constantFrom('Healthy', 'Unhealthy'),
      topology: fc.option(fc.record({ nodes: fc.array(fc.record({ ID: fc.integer({ min: 0, max: 2 }) }), { maxLength: 2 }) }), { nil: undefined }),
    }), { maxLength: 6 });
    fc.assert(fc.property(fc.array(listed, { minLength: 1, maxLength: 6 }), (answers) => {
      let held: DeviceInventoryEntry[] = [];
      let previous: DeviceInventoryEntry[] = [];
      for (const answer of answers) {
        const devices = devicesFromList(answer);
        const changes = deviceListChanges(previous, devices);
        if (changes) held = applyDeviceListChanges(held, changes);
        previous = devices;
        expect(held).toEqual(devices);
      }
    }));
  });
});

describe('deviceInventoryChanges and applyDeviceInventoryChanges', () => {
  it('tell a resource added with no device, one changed and one gone; an untouched one is left out', () => {
    const kept = [dev('k')];
    const before = { kept, changed: [dev('a'), dev('b')], gone: [dev('x')] };
    const after = { kept, changed: [dev('a', false)], added: [] };
    const changes = deviceInventoryChanges(before, after);
    expect(changes).toEqual({ gone: null, changed: { upserted: [dev('a', false)], removed: ['b'] }, added: { upserted: [], removed: [] } });
    expect(applyDeviceInventoryChanges(before, changes)).toEqual(after);
  });

  it('keeps the resources\' order, a new one last', () => {
    const changes = deviceInventoryChanges({ a: [dev('1')], b: [] }, { a: [dev('1', false)], b: [], c: [] });
    expect(Object.keys(applyDeviceInventoryChanges({ a: [dev('1')], b: [] }, changes))).toEqual(['a', 'b', 'c']);
  });

  it('tell nothing when nothing changed, though the lists are new copies', () => {
    expect(deviceInventoryChanges({ r: [dev('a')] }, { r: [dev('a')] })).toEqual({});
  });
});
