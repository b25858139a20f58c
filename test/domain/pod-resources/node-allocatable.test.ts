import { describe, expect, it } from 'vitest';
import { nodeAllocatable } from '../../../src/domain/pod-resources/node-allocatable.js';
import { EMPTY_INVENTORY, type ResourceInventory } from '../../../src/domain/resource-managers/inventory.js';

const GiB = 1024 ** 3;

function inventory(memory: ResourceInventory['memory']): ResourceInventory {
  return { ...EMPTY_INVENTORY, memory };
}

describe('nodeAllocatable memory', () => {
  it('answers no memory with the None policy', () => {
    expect(nodeAllocatable(inventory(null)).memory).toEqual([]);
  });

  it('answers each node\'s memory less its reservation and hugepages, and hugepages less theirs, leaving out kinds with none left', () => {
    const memory = {
      nodes: [
        { id: 0, memoryBytes: 8 * GiB, hugepages: [{ pageSizeKiB: 2048, pages: 512 }, { pageSizeKiB: 1048576, pages: 0 }] },
        { id: 1, memoryBytes: 8 * GiB, hugepages: [{ pageSizeKiB: 2048, pages: 0 }] },
      ],
      systemReserved: { 0: { memory: GiB }, 1: { memory: 2 * GiB } },
    };
    expect(nodeAllocatable(inventory(memory)).memory).toEqual([
      { numaNode: 0, type: 'hugepages-2Mi', bytes: GiB },
      { numaNode: 0, type: 'memory', bytes: 6 * GiB },
      { numaNode: 1, type: 'memory', bytes: 6 * GiB },
    ]);
  });
});
