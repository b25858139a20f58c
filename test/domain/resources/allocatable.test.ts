import { describe, expect, it } from 'vitest';
import { computeAllocatable, type AllocatableInput } from '../../../src/domain/resources/allocatable.js';

const Gi = 2 ** 30;
const input = (extra: Partial<AllocatableInput> = {}): AllocatableInput => ({
  numCores: 4, memoryCapacityBytes: 16 * Gi, rootFsCapacityBytes: 100 * Gi, maxPods: 110,
  kubeReserved: {}, systemReserved: {}, evictionHard: {}, ...extra,
});

describe('computeAllocatable', () => {
  it('takes reserved resources and the hard eviction thresholds off capacity', () => {
    const r = computeAllocatable(input({ kubeReserved: { cpu: '500m', memory: '1Gi' }, systemReserved: { memory: '512Mi' }, evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' } }));
    expect(r.evictionHard).toEqual({ memoryBytes: 100 * 2 ** 20, ephemeralStorageBytes: Math.trunc(100 * Gi * Math.fround(0.1)) });
    expect(r.allocatable).toEqual({
      cpuMillis: 3500,
      memoryBytes: 16 * Gi - Gi - 512 * 2 ** 20 - 100 * 2 ** 20,
      ephemeralStorageBytes: 100 * Gi - r.evictionHard.ephemeralStorageBytes,
      pods: 110,
    });
  });

  it('counts 0% and 100% as no threshold, as the eviction manager does (#18)', () => {
    expect(computeAllocatable(input({ evictionHard: { 'memory.available': '100%', 'nodefs.available': '0%' } })).evictionHard).toEqual({ memoryBytes: 0, ephemeralStorageBytes: 0 });
  });

  it('never goes below zero', () => {
    expect(computeAllocatable(input({ evictionHard: { 'memory.available': '1Pi' } })).allocatable.memoryBytes).toBe(0);
  });
});
