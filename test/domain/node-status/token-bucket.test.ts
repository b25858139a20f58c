import { describe, expect, it } from 'vitest';
import { newTokenBucket, reserveToken } from '../../../src/domain/node-status/token-bucket.js';

describe('token bucket', () => {
  it('lets a burst through at once, then spaces requests at 1/qps', () => {
    const b = newTokenBucket(50, 100, 0);
    const waits = Array.from({ length: 102 }, () => reserveToken(b, 0));
    expect(waits.slice(0, 100).every((w) => w === 0)).toBe(true);
    expect(waits.slice(100)).toEqual([20, 40]);
  });

  it('refills with time up to the burst and no further', () => {
    const b = newTokenBucket(5, 10, 0);
    for (let i = 0; i < 10; i++) reserveToken(b, 0);
    expect(reserveToken(b, 0)).toBe(200);
    // 10 s later: the deficit is repaid and the bucket full again, not fuller.
    const waits = Array.from({ length: 11 }, () => reserveToken(b, 10_000));
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
  });

  it('rejects a zero rate', () => {
    expect(() => newTokenBucket(0, 1, 0)).toThrow(RangeError);
  });
});
