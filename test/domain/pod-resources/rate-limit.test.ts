import { describe, expect, it } from 'vitest';
import { DEFAULT_BURST_TOKENS, DEFAULT_QPS, fullBucket, takeToken, type TokenBucket } from '../../../src/domain/pod-resources/rate-limit.js';

/** How many of `calls` calls at the same instant are allowed. */
function allowedAt(bucket: TokenBucket, nowMs: number, calls: number): { allowed: number; bucket: TokenBucket } {
  let allowed = 0;
  for (let i = 0; i < calls; i += 1) {
    const t = takeToken(bucket, nowMs);
    bucket = t.bucket;
    if (t.allowed) allowed += 1;
  }
  return { allowed, bucket };
}

describe('takeToken', () => {
  it("has Go's figures: 100 calls a second, 10 at once", () => {
    expect([DEFAULT_QPS, DEFAULT_BURST_TOKENS]).toEqual([100, 10]);
  });

  it('allows a burst of 10 from a full bucket and refuses the 11th', () => {
    expect(allowedAt(fullBucket(0), 0, 11).allowed).toBe(10);
  });

  it('gives one token back every 10 ms, never more than the burst', () => {
    const drained = allowedAt(fullBucket(0), 0, 10).bucket;
    expect(allowedAt(drained, 10, 3).allowed).toBe(1);
    expect(allowedAt(drained, 25, 3).allowed).toBe(2);
    expect(allowedAt(drained, 60_000, 20).allowed).toBe(10);
  });
});
