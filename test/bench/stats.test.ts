import { describe, expect, it } from 'vitest';
import { median, percentile, round } from '../../bench/stats.js';

describe('percentile', () => {
  it.each([
    [[5, 1, 4, 2, 3], 50, 3],
    [[1, 2, 3, 4], 50, 2],
    [Array.from({ length: 100 }, (_, i) => i + 1), 99, 99],
    [Array.from({ length: 110 }, (_, i) => i + 1), 99, 109],
    [[7], 99, 7],
  ])('takes the nearest rank of %j at p%d', (samples, p, expected) => {
    expect(percentile(samples, p)).toBe(expected);
  });

  it('is NaN without samples and leaves its input unsorted', () => {
    const xs = [3, 1, 2];
    expect(percentile([], 50)).toBeNaN();
    expect(median(xs)).toBe(2);
    expect(xs).toEqual([3, 1, 2]);
  });

  it('takes the middle sample as the median, or the mean of the two middle ones for an even count', () => {
    expect(median([5, 1, 4, 2, 3])).toBe(3);
    expect(median([1.203, 1.227])).toBeCloseTo(1.215, 10);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('rounds to the given decimals', () => {
    expect(round(1.23456, 3)).toBe(1.235);
    expect(round(2.5, 0)).toBe(3);
  });
});
