import { describe, expect, it } from 'vitest';
import { pluginSocketPath, registrationRefusal } from '../../../src/domain/device-manager/device-plugin-api.js';
import { allUnhealthy, devicesFromList, extendedResourceCounts } from '../../../src/domain/device-manager/devices.js';
import { mergeAllocations } from '../../../src/domain/device-manager/container-allocation.js';

describe('Register\'s checks', () => {
  it('accepts v1beta1 and an extended resource name', () => {
    expect(registrationRefusal({ version: 'v1beta1', resourceName: 'example.com/resource' })).toBeNull();
  });

  it('refuses another version with Go\'s message', () => {
    expect(registrationRefusal({ version: 'v1alpha', resourceName: 'example.com/resource' }))
      .toBe('requested API version "v1alpha" is not supported by kubelet. Supported versions are ["v1beta1"]');
  });

  it.each(['cpu', 'kubernetes.io/foo', 'nodomain', 'requests.example.com/x'])('refuses the resource name %s', (name) => {
    expect(registrationRefusal({ version: 'v1beta1', resourceName: name })).toBe(`the ResourceName "${name}" is invalid`);
  });

  it('keeps the endpoint inside the directory', () => {
    expect(pluginSocketPath('/dp/', 'dp.123')).toBe('/dp/dp.123');
    expect(pluginSocketPath('/dp', '../kubelet.sock')).toBeNull();
    expect(pluginSocketPath('/dp', '/tmp/x')).toBeNull();
    expect(pluginSocketPath('/dp', '')).toBeNull();
  });
});

describe('the devices of a resource', () => {
  it('reads a ListAndWatch answer: health and NUMA nodes, in id order', () => {
    expect(devicesFromList([
      { ID: 'b', health: 'Unhealthy', topology: null },
      { ID: 'a', health: 'Healthy', topology: { nodes: [{ ID: '1' }, { ID: '0' }] } },
    ])).toEqual([{ id: 'a', healthy: true, numaNodes: [0, 1] }, { id: 'b', healthy: false, numaNodes: [] }]);
  });

  it('counts capacity (all) and allocatable (healthy); a removed resource is 0 and 0', () => {
    const devices = { 'example.com/resource': [{ id: 'a', healthy: true, numaNodes: [] }, { id: 'b', healthy: false, numaNodes: [] }] };
    expect(extendedResourceCounts(devices, ['example.com/gone'])).toEqual({
      'example.com/resource': { capacity: 2, allocatable: 1 },
      'example.com/gone': { capacity: 0, allocatable: 0 },
    });
    expect(extendedResourceCounts({ r: allUnhealthy(devices['example.com/resource']) }, [])).toEqual({ r: { capacity: 2, allocatable: 0 } });
  });
});

describe('mergeAllocations', () => {
  it('keeps the first setting of each env, mount, device and annotation, resources in name order', () => {
    const a = { envs: { A: '1', X: 'a' }, mounts: [{ containerPath: '/m', hostPath: '/a', readOnly: false }], devices: [{ containerPath: '/dev/x', hostPath: '/dev/a', permissions: 'rw' }], annotations: { k: 'a' }, cdiDevices: ['v.com/c=a'] };
    const b = { envs: { B: '2', X: 'b' }, mounts: [{ containerPath: '/m', hostPath: '/b', readOnly: true }], devices: [{ containerPath: '/dev/x', hostPath: '/dev/b', permissions: 'r' }], annotations: { k: 'b', l: 'b' }, cdiDevices: ['v.com/c=a', 'v.com/c=b'] };
    expect(mergeAllocations({ 'z.com/b': b, 'a.com/a': a }).runtime).toEqual({
      envs: { A: '1', X: 'a', B: '2' }, mounts: a.mounts, devices: a.devices, annotations: { k: 'a', l: 'b' }, cdiDevices: ['v.com/c=a', 'v.com/c=b'],
    });
  });
});
