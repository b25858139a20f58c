import { describe, expect, it } from 'vitest';
import { milliCpuToQuota, milliCpuToShares, sharesToWeight, weightToShares } from '../../../src/domain/cgroups/resource-config.js';

describe('milliCpuToShares', () => {
  // Go's TestMilliCPUToShares cases.
  it.each([[0, 2], [1, 2], [100, 102], [1000, 1024], [1500, 1536], [256_000, 262_144], [300_000, 262_144]])('gives %d millicores %d shares', (milli, shares) => {
    expect(milliCpuToShares(milli)).toBe(shares);
  });
});

describe('milliCpuToQuota', () => {
  it.each([[0, 100_000, 0], [5, 100_000, 1000], [9, 100_000, 1000], [10, 100_000, 1000], [200, 100_000, 20_000], [500, 100_000, 50_000], [1000, 100_000, 100_000], [1500, 100_000, 150_000], [1500, 50_000, 75_000]])(
    'gives %d millicores over a %d µs period a quota of %d µs', (milli, period, quota) => {
      expect(milliCpuToQuota(milli, period)).toBe(quota);
    });
});

describe('sharesToWeight', () => {
  it.each([[2, 1], [1024, 39], [262_144, 10_000], [102, 4]])('converts %d shares to weight %d', (shares, weight) => {
    expect(sharesToWeight(shares)).toBe(weight);
  });

  it('reads the minimum and maximum back exactly', () => {
    expect(weightToShares(sharesToWeight(2))).toBe(2);
    expect(weightToShares(sharesToWeight(262_144))).toBe(262_144);
  });
});
