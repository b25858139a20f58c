import { describe, expect, it } from 'vitest';
import { conditionsLastObservedAt, conditionsObservedSince, conditionsOf } from '../../../src/domain/eviction/pressure-conditions.js';
import type { Threshold } from '../../../src/domain/eviction/thresholds.js';
import { hardMemory } from './fixtures.js';

const pid: Threshold = { signal: 'pid.available', kind: 'hard', value: { quantity: 10, text: '10' }, gracePeriodMs: 0 };
const inodes: Threshold = { signal: 'imagefs.inodesFree', kind: 'hard', value: { percentage: 0.05 }, gracePeriodMs: 0 };

describe('pressure conditions', () => {
  it('maps thresholds to their conditions once each, in node status order', () => {
    expect(conditionsOf([pid, inodes, hardMemory(1), hardMemory(2, { kind: 'soft' })])).toEqual(['MemoryPressure', 'DiskPressure', 'PIDPressure']);
  });

  it('holds a condition for the transition period after it was last observed', () => {
    const at = conditionsLastObservedAt(['MemoryPressure'], { DiskPressure: 0 }, 10_000);
    expect(at).toEqual({ DiskPressure: 0, MemoryPressure: 10_000 });
    expect(conditionsObservedSince(at, 300_000, 299_999)).toEqual(['MemoryPressure', 'DiskPressure']);
    expect(conditionsObservedSince(at, 300_000, 300_000)).toEqual(['MemoryPressure']);
    expect(conditionsObservedSince(at, 300_000, 310_000)).toEqual([]);
  });
});
