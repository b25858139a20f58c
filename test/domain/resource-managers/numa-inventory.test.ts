import { describe, expect, it } from 'vitest';
import { applyKubeletConfigurationDefaults } from '../../../src/domain/config/defaults.js';
import { resolveFeatureGates } from '../../../src/domain/config/feature-gates.js';
import type { KubeletConfiguration } from '../../../src/domain/config/types.js';
import { numaInventory } from '../../../src/domain/resource-managers/numa-inventory.js';
import type { NumaNodeFacts } from '../../../src/domain/resource-managers/numa-node.js';

const Gi = 2 ** 30;
const config = (extra: Partial<KubeletConfiguration>): KubeletConfiguration => ({ ...applyKubeletConfigurationDefaults({}, resolveFeatureGates().gates), ...extra });
const nodes = (n: number): NumaNodeFacts[] => Array.from({ length: n }, (_, id) => ({
  id, memoryBytes: 4 * Gi, hugepages: [{ pageSizeKiB: 2048, pages: 0 }], distances: Array.from({ length: n }, (_, j) => (j === id ? 10 : 20)),
}));

describe('numaInventory', () => {
  it('gives the topology manager the NUMA node ids, and the None memory policy no inventory', () => {
    expect(numaInventory({ config: config({ topologyManagerPolicy: 'restricted', topologyManagerScope: 'pod' }), nodes: nodes(2), memoryCapacityBytes: 8 * Gi })).toEqual({
      ok: true, memory: null, topology: { policy: 'restricted', scope: 'pod', options: {}, numaNodes: [0, 1], distances: {} },
    });
  });

  it('keeps the distances only for prefer-closest-numa-nodes', () => {
    const r = numaInventory({ config: config({ topologyManagerPolicy: 'best-effort', topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' } }), nodes: nodes(2), memoryCapacityBytes: 8 * Gi });
    expect(r.ok && r.topology.distances).toEqual({ 0: [10, 20], 1: [20, 10] });
  });

  it('refuses more than 8 NUMA nodes unless the policy is none, as Go does', () => {
    expect(numaInventory({ config: config({ topologyManagerPolicy: 'best-effort' }), nodes: nodes(9), memoryCapacityBytes: 36 * Gi })).toEqual({ ok: false, message: 'unsupported on machines with more than 8 NUMA Nodes' });
    expect(numaInventory({ config: config({}), nodes: nodes(9), memoryCapacityBytes: 36 * Gi }).ok).toBe(true);
  });

  it('builds the Static memory inventory from the nodes and reservedMemory', () => {
    const r = numaInventory({ config: config({ memoryManagerPolicy: 'Static', reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi' } }] }), nodes: nodes(1), memoryCapacityBytes: 4 * Gi });
    expect(r).toMatchObject({ ok: true, memory: { nodes: [{ id: 0, memoryBytes: 4 * Gi, hugepages: [{ pageSizeKiB: 2048, pages: 0 }] }], systemReserved: { 0: { memory: 100 * 2 ** 20 } } } });
  });

  it('refuses a Static memory manager whose reservation does not match Node Allocatable', () => {
    expect(numaInventory({ config: config({ memoryManagerPolicy: 'Static' }), nodes: nodes(1), memoryCapacityBytes: 4 * Gi })).toEqual({
      ok: false, message: 'the total amount "0" of type "memory" is not equal to the value "100Mi" determined by Node Allocatable feature',
    });
  });
});
