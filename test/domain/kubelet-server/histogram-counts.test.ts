import { describe, expect, it } from 'vitest';
import { countsFromMs, newHistogramCounts, recordDistributionMs, recordMs } from '../../../src/domain/kubelet-server/histogram-counts.js';

describe('histogram counts', () => {
  it('counts each observation in every bucket at or above it, and sums seconds', () => {
    const h = countsFromMs([0.01, 0.1, 1], [5, 10, 50, 2000]);
    expect(h).toEqual({ buckets: [0.01, 0.1, 1], counts: [2, 3, 3], count: 4, sumSeconds: 2.065 });
  });

  it('records in place, holding only the counts', () => {
    const h = newHistogramCounts([1]);
    for (let i = 0; i < 1000; i++) recordMs(h, 500);
    expect(h.counts).toEqual([1000]);
    expect(h.count).toBe(1000);
  });
});

describe('recordDistributionMs', () => {
  it('gives each bucket the share of the highest percentile within its bound', () => {
    // 200 observations: half at ≤ 0.5 ms, 99 % at ≤ 4 ms, the slowest at 60 ms.
    const h = recordDistributionMs(newHistogramCounts([0.001, 0.005, 0.05, 0.1]), [[0, 0.1], [50, 0.5], [99, 4], [100, 60]], 200, 300);
    expect(h.counts).toEqual([100, 198, 198, 200]);
    expect(h.count).toBe(200);
    expect(h.sumSeconds).toBeCloseTo(0.3);
  });

  it('adds to what the histogram already holds, and ignores an empty fold', () => {
    const h = countsFromMs([0.01], [5]);
    recordDistributionMs(h, [[100, 20]], 3, 60);
    recordDistributionMs(h, [], 0, 0);
    expect(h).toEqual({ buckets: [0.01], counts: [1], count: 4, sumSeconds: 0.065 });
  });
});
