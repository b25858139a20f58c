import { describe, expect, it } from 'vitest';
import {
  byEvictionPriority,
  mergeThresholds,
  reclaimableThreshold,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
  thresholdsUpdatedStats,
} from '../../../src/domain/eviction/threshold-sets.js';
import type { Threshold } from '../../../src/domain/eviction/thresholds.js';
import { hardMemory, Mi, observed } from './fixtures.js';

const disk: Threshold = { signal: 'nodefs.available', kind: 'hard', value: { percentage: 0.1 }, gracePeriodMs: 0 };
const softMemory = hardMemory(200 * Mi, { kind: 'soft', gracePeriodMs: 60_000 });

describe('thresholdsMet', () => {
  it('is met when less is available than the threshold quantity', () => {
    const obs = { 'memory.available': observed(99 * Mi, 1000 * Mi), 'nodefs.available': observed(11, 100) };
    expect(thresholdsMet([hardMemory(100 * Mi), disk], obs, false)).toEqual([hardMemory(100 * Mi)]);
  });

  it('stays met until the minimum reclaim is available too when enforced', () => {
    const t = hardMemory(100 * Mi, { minReclaim: { quantity: 50 * Mi, text: '50Mi' } });
    const obs = { 'memory.available': observed(120 * Mi, 1000 * Mi) };
    expect(thresholdsMet([t], obs, false)).toEqual([]);
    expect(thresholdsMet([t], obs, true)).toEqual([t]);
  });

  it('is never met without an observation', () => {
    expect(thresholdsMet([disk], {}, false)).toEqual([]);
  });
});

describe('grace periods', () => {
  it('keeps the first time a threshold was met and forgets thresholds no longer met', () => {
    const first = thresholdsFirstObservedAt([softMemory, disk], {}, 1000);
    expect(thresholdsFirstObservedAt([softMemory], first, 5000)).toEqual({ 'soft:memory.available': 1000 });
  });

  it('acts on a soft threshold only once met for its grace period; a hard one at once', () => {
    const at = { 'soft:memory.available': 0, 'hard:nodefs.available': 50_000 };
    expect(thresholdsMetGracePeriod([softMemory, disk], at, 59_999)).toEqual([disk]);
    expect(thresholdsMetGracePeriod([softMemory, disk], at, 60_000)).toEqual([softMemory, disk]);
  });
});

describe('thresholdsUpdatedStats', () => {
  it('drops thresholds whose reading is no newer than last cycle', () => {
    const last = { 'memory.available': observed(1, 2, '2026-11-24T09:00:00Z') };
    expect(thresholdsUpdatedStats([hardMemory(1)], { 'memory.available': observed(1, 2, '2026-11-24T09:00:00Z') }, last)).toEqual([]);
    expect(thresholdsUpdatedStats([hardMemory(1)], { 'memory.available': observed(1, 2, '2026-11-24T09:00:10Z') }, last)).toHaveLength(1);
  });
});

describe('ordering', () => {
  it('puts memory first and merges without duplicates', () => {
    expect(byEvictionPriority([disk, hardMemory(1)]).map((t) => t.signal)).toEqual(['memory.available', 'nodefs.available']);
    expect(mergeThresholds([disk], [disk, softMemory])).toEqual([disk, softMemory]);
    expect(reclaimableThreshold([disk, hardMemory(1)])?.resource).toBe('memory');
    expect(reclaimableThreshold([])).toBeNull();
  });
});
