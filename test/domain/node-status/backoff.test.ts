import { describe, expect, it } from 'vitest';
import { jitteredMs, retryDelayMs } from '../../../src/domain/node-status/backoff.js';

describe('retry back-off', () => {
  it('doubles from 100 ms and stops at 7 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map(retryDelayMs)).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
  });
  it('stretches a period by factor × jitter', () => {
    expect(jitteredMs(10_000, 0.04, 0)).toBe(10_000);
    expect(jitteredMs(10_000, 0.04, 0.5)).toBe(10_200);
  });
});
