/**
 * A node of many pods each holding several devices, for the pod resources answers' tests: pod i's
 * container holds devices `gpu-<4i+k>`, device n on NUMA node n % 2; the last device of each pod
 * belongs to no plugin any more (no topology).
 */
import type { PodResourcesState } from '../../../src/domain/pod-resources/answers.js';
import type { DeviceInventoryEntry } from '../../../src/domain/resource-managers/inventory.js';

export const RESOURCE = 'example.com/gpu';
export const DEVICES_PER_POD = 4;

const deviceId = (n: number) => `gpu-${String(n).padStart(5, '0')}`;

export function largeNode(podCount: number): PodResourcesState {
  const pods = Array.from({ length: podCount }, (_, i) => ({
    pod: { metadata: { uid: `u${i}`, name: `p${i}`, namespace: 'ns' }, spec: { containers: [{ name: 'app', image: 'pause' }] } },
    active: true,
  }));
  const held = (i: number) => Array.from({ length: DEVICES_PER_POD }, (_, k) => deviceId(i * DEVICES_PER_POD + k));
  const assignments = Object.fromEntries(pods.map((_, i) => [`u${i}`, { app: { devices: { [RESOURCE]: held(i) }, cpus: [i] } }]));
  const devices: DeviceInventoryEntry[] = pods.flatMap((_, i) => held(i).slice(0, DEVICES_PER_POD - 1)).map((id) => ({ id, healthy: true, numaNodes: [Number(id.slice(4)) % 2] }));
  return { pods, assignments, allocatable: { devices: { [RESOURCE]: devices }, cpus: [], memory: [] } };
}

/** Pod i's List entry, written out by hand from the layout above. */
export function expectedPod(i: number) {
  const devices = Array.from({ length: DEVICES_PER_POD }, (_, k) => {
    const n = i * DEVICES_PER_POD + k;
    return k === DEVICES_PER_POD - 1
      ? { resource_name: RESOURCE, device_ids: [deviceId(n)] }
      : { resource_name: RESOURCE, device_ids: [deviceId(n)], topology: { nodes: [{ ID: n % 2 }] } };
  });
  return { name: `p${i}`, namespace: 'ns', containers: [{ name: 'app', devices, cpu_ids: [i], memory: [] }] };
}
