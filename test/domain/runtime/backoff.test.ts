import { describe, expect, it } from 'vitest';
import { Backoff, crashLoopBackoffPolicy } from '../../../src/domain/runtime/backoff.js';

describe('Backoff', () => {
  it('waits 10 s after the first failure and doubles up to 300 s', () => {
    const b = new Backoff({ initialMs: 10_000, maxMs: 300_000 });
    const seen: number[] = [];
    let now = 0;
    for (let i = 0; i < 7; i++) {
      b.next('k', now);
      seen.push(b.current('k') ?? -1);
      now += b.current('k') ?? 0;
    }
    expect(seen).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('is in back-off until the delay has passed since the last failure', () => {
    const b = new Backoff({ initialMs: 10_000, maxMs: 300_000 });
    expect(b.isInBackoff('k', 0)).toBe(false);
    b.next('k', 1000);
    expect(b.isInBackoff('k', 10_999)).toBe(true);
    expect(b.isInBackoff('k', 11_000)).toBe(false);
    expect(b.isInBackoff('other', 5000)).toBe(false);
  });

  it('starts over after 2 × max without failures, and gc forgets such keys', () => {
    const b = new Backoff({ initialMs: 10_000, maxMs: 300_000 });
    b.next('k', 0);
    b.next('k', 10_000);
    expect(b.current('k')).toBe(20_000);
    b.next('k', 10_000 + 600_001);
    expect(b.current('k')).toBe(10_000);
    b.gc(10_000 + 600_001 + 600_001);
    expect(b.current('k')).toBeUndefined();
  });

  it('measures isInBackoffSince from the event time', () => {
    const b = new Backoff({ initialMs: 10_000, maxMs: 300_000 });
    b.next('k', 50_000);
    expect(b.isInBackoffSince('k', 45_000, 50_000)).toBe(true);
    expect(b.isInBackoffSince('k', 45_000, 55_000)).toBe(false);
  });
});

describe('crashLoopBackoffPolicy', () => {
  it('caps the restart back-off at the configured period, and starts below 10 s when the cap is below it', () => {
    expect(crashLoopBackoffPolicy(undefined)).toEqual({ initialMs: 10_000, maxMs: 300_000 });
    expect(crashLoopBackoffPolicy(60_000)).toEqual({ initialMs: 10_000, maxMs: 60_000 });
    expect(crashLoopBackoffPolicy(1_000)).toEqual({ initialMs: 1_000, maxMs: 1_000 });
  });
});
