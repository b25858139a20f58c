import { describe, expect, it } from 'vitest';
import { deviceTopologyHints, devicesToAllocate, filterByAffinity, numaNodeMasks, type DevicesToAllocateInput } from '../../../src/domain/device-manager/allocate-devices.js';
import type { DeviceInventoryEntry } from '../../../src/domain/device-manager/devices.js';

const dev = (id: string, numaNodes: number[] = [], healthy = true): DeviceInventoryEntry => ({ id, healthy, numaNodes });
const base = (o: Partial<DevicesToAllocateInput> = {}): DevicesToAllocateInput => ({
  podUid: 'uid-1', containerName: 'c', resource: 'example.com/resource', required: 1, held: undefined, reusable: [],
  devices: [dev('Dev-1'), dev('Dev-2')], inUse: new Set(), affinity: null, ...o,
});

describe('devicesToAllocate', () => {
  it('takes free healthy devices in id order', () => {
    expect(devicesToAllocate(base())).toEqual({ ok: true, devices: ['Dev-1'] });
    expect(devicesToAllocate(base({ inUse: new Set(['Dev-1']) }))).toEqual({ ok: true, devices: ['Dev-2'] });
  });

  it('refuses with Go\'s message when the free healthy devices are too few', () => {
    expect(devicesToAllocate(base({ inUse: new Set(['Dev-1', 'Dev-2']) }))).toEqual({
      ok: false, error: 'requested number of devices unavailable for example.com/resource. Requested: 1, Available: 0',
    });
    expect(devicesToAllocate(base({ required: 2, devices: [dev('Dev-1'), dev('Dev-2', [], false)] }))).toEqual({
      ok: false, error: 'requested number of devices unavailable for example.com/resource. Requested: 2, Available: 1',
    });
  });

  it('refuses a resource no plugin registered', () => {
    expect(devicesToAllocate(base({ devices: undefined }))).toEqual({ ok: false, error: "can't allocate unregistered device example.com/resource" });
  });

  it('keeps what the container holds already, even when its plugin is gone (a restart re-admits it)', () => {
    expect(devicesToAllocate(base({ held: ['Dev-2'], devices: undefined, inUse: new Set(['Dev-2']) }))).toEqual({ ok: true, devices: [] });
  });

  it('refuses a container that holds a different number than it asks for', () => {
    expect(devicesToAllocate(base({ held: ['Dev-1'], required: 2 }))).toEqual({
      ok: false, error: 'pod "uid-1" container "c" changed request for resource "example.com/resource" from 1 to 2',
    });
  });

  it('reuses the init containers\' devices first', () => {
    expect(devicesToAllocate(base({ reusable: ['Dev-2'], inUse: new Set(['Dev-2']) }))).toEqual({ ok: true, devices: ['Dev-2'] });
    expect(devicesToAllocate(base({ required: 2, reusable: ['Dev-2'], inUse: new Set(['Dev-2']) }))).toEqual({ ok: true, devices: ['Dev-2', 'Dev-1'] });
  });

  it('takes devices on the affinity\'s NUMA nodes first', () => {
    const devices = [dev('a', [0]), dev('b', [1]), dev('c', [1]), dev('d')];
    expect(devicesToAllocate(base({ devices, affinity: [1] }))).toEqual({ ok: true, devices: ['b'] });
    expect(devicesToAllocate(base({ devices, affinity: [1], required: 3 }))).toEqual({ ok: true, devices: ['b', 'c', 'a'] });
  });
});

describe('filterByAffinity', () => {
  it('puts every device in "no affinity" without an affinity or without topology', () => {
    expect(filterByAffinity([dev('b'), dev('a')], [dev('a'), dev('b')], [0])).toEqual({ aligned: [], unaligned: [], noAffinity: ['a', 'b'] });
    expect(filterByAffinity([dev('a', [0])], [dev('a', [0])], null)).toEqual({ aligned: [], unaligned: [], noAffinity: ['a'] });
  });

  it('sorts other nodes fuller first and devices without topology last', () => {
    const all = [dev('a', [0]), dev('b', [1]), dev('c', [2]), dev('d', [2]), dev('e')];
    expect(filterByAffinity(all, all, [0])).toEqual({ aligned: ['a'], unaligned: ['c', 'd', 'b'], noAffinity: ['e'] });
  });
});

describe('deviceTopologyHints', () => {
  it('lists every NUMA set that can hold the request, the smallest preferred', () => {
    const all = [dev('a', [0]), dev('b', [1]), dev('c', [1])];
    expect(deviceTopologyHints([0, 1], all, ['a', 'b', 'c'], [], 2)).toEqual([
      { numaNodes: [1], preferred: true },
      { numaNodes: [0, 1], preferred: false },
    ]);
  });

  it('drops sets that miss a reusable device', () => {
    const all = [dev('a', [0]), dev('b', [1])];
    expect(deviceTopologyHints([0, 1], all, ['b'], ['a'], 1)).toEqual([{ numaNodes: [0], preferred: true }, { numaNodes: [0, 1], preferred: false }]);
  });

  it('iterates NUMA masks by size, then in order', () => {
    expect(numaNodeMasks([1, 0, 2])).toEqual([[0], [1], [2], [0, 1], [0, 2], [1, 2], [0, 1, 2]]);
  });
});
