import { describe, expect, it } from 'vitest';
import { countsFromMs, newHistogramCounts, recordMs } from '../../../src/domain/http/histogram-counts.js';

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
