import { describe, expect, it } from 'vitest';
import type { MemoryInventory } from '../../../../src/domain/resource-managers/memory/machine-state.js';
import { memoryStateFileText, restoreMemoryState } from '../../../../src/domain/resource-managers/memory/restore.js';

const Gi = 2 ** 30;
const inventory: MemoryInventory = {
  nodes: [{ id: 0, memoryBytes: 4 * Gi, hugepages: [{ pageSizeKiB: 2048, pages: 0 }] }, { id: 1, memoryBytes: 4 * Gi, hugepages: [] }],
  systemReserved: { 0: { memory: Gi } },
};
const shares = { 'uid-a': { app: { numaNodes: [1], bytes: { memory: 2 * Gi } } }, 'uid-b': { db: { numaNodes: [0, 1], bytes: { memory: Gi } } } };
const PATH = '/var/lib/kubelet/memory_manager_state';

describe('the memory manager\'s start', () => {
  it('starts empty without a state file', () => {
    expect(restoreMemoryState(null, inventory, PATH)).toEqual({ ok: true, shares: {} });
  });

  it('gives back the shares it wrote', () => {
    expect(restoreMemoryState(memoryStateFileText(inventory, shares), inventory, PATH)).toEqual({ ok: true, shares });
  });

  it('refuses a file of the other policy, telling to drain the node', () => {
    const none = memoryStateFileText(null, {});
    expect(restoreMemoryState(none, inventory, PATH)).toEqual({ ok: false, message:
      `could not restore state from checkpoint: [memorymanager] configured policy "Static" differs from state checkpoint policy "None", please drain this node and delete the memory manager checkpoint file "${PATH}" before restarting Kubelet` });
    expect(restoreMemoryState(memoryStateFileText(inventory, shares), null, PATH).ok).toBe(false);
    expect(restoreMemoryState(none, null, PATH)).toEqual({ ok: true, shares: {} });
  });

  it('refuses a state that no longer matches the machine (the reservation changed)', () => {
    const text = memoryStateFileText(inventory, shares);
    const changed: MemoryInventory = { ...inventory, systemReserved: { 0: { memory: 2 * Gi } } };
    expect(restoreMemoryState(text, changed, PATH)).toEqual({ ok: false, message: '[memorymanager] the expected machine state is different from the real one' });
  });

  it('refuses shares on a NUMA node the machine does not have', () => {
    const text = memoryStateFileText({ ...inventory, nodes: [...inventory.nodes, { id: 2, memoryBytes: Gi, hugepages: [] }] }, { u: { c: { numaNodes: [2], bytes: { memory: 1 } } } });
    expect(restoreMemoryState(text, inventory, PATH)).toEqual({ ok: false, message: '[memorymanager] (pod: u, container: c) the memory assignment uses the NUMA that does not exist' });
  });
});
