import { describe, expect, it } from 'vitest';
import { devicesFromList, healthyDeviceIds } from '../../../src/domain/device-manager/devices.js';

describe('devicesFromList', () => {
  it('gives the devices in id order, their NUMA nodes sorted once each', () => {
    expect(devicesFromList([
      { ID: 'b', health: 'Unhealthy' },
      { ID: 'a', health: 'Healthy', topology: { nodes: [{ ID: 1 }, { ID: '0' }, { ID: 1 }] } },
    ])).toEqual([{ id: 'a', healthy: true, numaNodes: [0, 1] }, { id: 'b', healthy: false, numaNodes: [] }]);
  });

  it('keeps one device per id, the later entry\'s', () => {
    expect(devicesFromList([{ ID: 'a', health: 'Healthy' }, { ID: 'a', health: 'Unhealthy' }])).toEqual([{ id: 'a', healthy: false, numaNodes: [] }]);
  });
});

describe('healthyDeviceIds', () => {
  it('gives each resource\'s healthy ids, a resource with none as empty', () => {
    expect(healthyDeviceIds({ r: [{ id: 'a', healthy: true, numaNodes: [] }, { id: 'b', healthy: false, numaNodes: [] }], s: [] })).toEqual({ r: ['a'], s: [] });
  });
});
