/** Shared builders for the eviction domain tests. */
import type { EvictionCandidate } from '../../../src/domain/eviction/candidates.js';
import type { Observation } from '../../../src/domain/eviction/observations.js';
import type { Threshold } from '../../../src/domain/eviction/thresholds.js';

export const Mi = 1024 * 1024;

export const hardMemory = (quantity: number, extra: Partial<Threshold> = {}): Threshold => ({
  signal: 'memory.available', kind: 'hard', value: { quantity, text: `${quantity / Mi}Mi` }, gracePeriodMs: 0, ...extra,
});

export const observed = (available: number, capacity: number, time = '2026-11-24T09:00:00Z'): Observation => ({ available, capacity, time });

export function candidate(name: string, extra: Partial<EvictionCandidate> = {}): EvictionCandidate {
  return {
    uid: `uid-${name}`, namespace: 'default', name, priority: 0, critical: false,
    requests: { memory: 0, 'ephemeral-storage': 0 }, containerRequests: [{ name: 'c' }],
    usage: { memoryBytes: 0, diskBytes: 0, inodes: 0, containers: [{ name: 'c', workingSetBytes: 0, diskBytes: 0 }] },
    ...extra,
  };
}

/** A candidate using `bytes` of memory in its one container `c`. */
export const usingMemory = (name: string, bytes: number, extra: Partial<EvictionCandidate> = {}): EvictionCandidate =>
  candidate(name, { usage: { memoryBytes: bytes, diskBytes: 0, inodes: 0, containers: [{ name: 'c', workingSetBytes: bytes }] }, ...extra });
