import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { admitResources } from '../../../src/domain/resource-managers/admit.js';
import { deviceProvider } from '../../../src/domain/resource-managers/device-provider.js';
import { withDevices } from '../../../src/domain/resource-managers/device-inventory.js';
import { EMPTY_INVENTORY, type ResourceInventory } from '../../../src/domain/resource-managers/inventory.js';

const R = 'example.com/resource';
const inventory: ResourceInventory = withDevices(EMPTY_INVENTORY, {
  type: 'devices.changed', changes: { [R]: { upserted: [{ id: 'Dev-1', healthy: true, numaNodes: [] }, { id: 'Dev-2', healthy: true, numaNodes: [] }], removed: [] } },
});
const pod = (uid: string, count = '1', init = false): Pod => ({
  metadata: { name: uid, namespace: 'ns', uid },
  spec: {
    containers: [{ name: 'c', image: 'busybox', resources: { limits: { [R]: count, cpu: '1' } } }],
    ...(init ? { initContainers: [{ name: 'i', image: 'busybox', resources: { limits: { [R]: '1' } } }] } : {}),
  },
} as Pod);

describe('the device provider at admission', () => {
  it('gives each container its devices from the limits', () => {
    expect(admitResources({ pod: pod('a'), inventory, assignments: {} })).toEqual({ admit: true, assignment: { c: { devices: { [R]: ['Dev-1'] } } } });
    expect(admitResources({ pod: pod('b'), inventory, assignments: { a: { c: { devices: { [R]: ['Dev-1'] } } } } }))
      .toEqual({ admit: true, assignment: { c: { devices: { [R]: ['Dev-2'] } } } });
  });

  it('refuses with Go\'s UnexpectedAdmissionError and message when every device is held', () => {
    const held = { a: { c: { devices: { [R]: ['Dev-1'] } } }, b: { c: { devices: { [R]: ['Dev-2'] } } } };
    expect(admitResources({ pod: pod('c'), inventory, assignments: held })).toEqual({
      admit: false, reason: 'UnexpectedAdmissionError',
      message: `Allocate failed due to requested number of devices unavailable for ${R}. Requested: 1, Available: 0, which is unexpected`,
      container: 'c', provider: 'devices',
    });
  });

  it('re-admits a pod that holds its devices (a restart), even before its plugin is back', () => {
    const held = { a: { c: { devices: { [R]: ['Dev-2'] } } } };
    expect(admitResources({ pod: pod('a'), inventory: EMPTY_INVENTORY, assignments: held })).toEqual({ admit: true, assignment: held.a });
  });

  it('reuses the init container\'s device for the app container', () => {
    expect(admitResources({ pod: pod('a', '1', true), inventory, assignments: {} })).toEqual({
      admit: true, assignment: { i: { devices: { [R]: ['Dev-1'] } }, c: { devices: { [R]: ['Dev-1'] } } },
    });
  });

  it('leaves an extended resource no plugin serves to the predicates', () => {
    expect(admitResources({ pod: pod('a'), inventory: EMPTY_INVENTORY, assignments: {} })).toEqual({ admit: true, assignment: { c: {} } });
  });

  it('gives NUMA hints from the devices\' topology, none without topology', () => {
    const ctx = { pod: pod('a', '2'), inventory, assignments: {}, podAssignment: {} };
    expect(deviceProvider.hints(ctx, ctx.pod.spec.containers[0]!)).toEqual({});
    const numa = withDevices(EMPTY_INVENTORY, { type: 'devices.changed', changes: { [R]: { upserted: [{ id: 'a', healthy: true, numaNodes: [0] }, { id: 'b', healthy: true, numaNodes: [1] }], removed: [] } } });
    expect(deviceProvider.hints({ ...ctx, inventory: numa }, ctx.pod.spec.containers[0]!)).toEqual({ [R]: [{ numaNodes: [0, 1], preferred: true }] });
    expect(deviceProvider.hints({ ...ctx, pod: pod('a', '3'), inventory: numa }, pod('a', '3').spec.containers[0]!)).toEqual({ [R]: [] });
  });
});
