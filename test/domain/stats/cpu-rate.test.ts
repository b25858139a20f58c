import { describe, expect, it } from 'vitest';
import { usageNanoCores } from '../../../src/domain/stats/cpu-rate.js';

describe('usageNanoCores', () => {
  const at = (s: number, cpuNs: bigint) => ({ timestampNs: BigInt(s) * 1_000_000_000n, usageCoreNanoSeconds: cpuNs });

  it.each([
    ['half a core over 10 s', at(0, 1_000_000_000n), at(10, 6_000_000_000n), 500_000_000n],
    ['two cores over 2 s', at(5, 0n), at(7, 4_000_000_000n), 2_000_000_000n],
    ['an idle container', at(0, 7n), at(3, 7n), 0n],
  ])('is the counter delta per second: %s', (_what, prev, cur, want) => {
    expect(usageNanoCores(prev, cur)).toBe(want);
  });

  it('keeps every digit of counters beyond 2^53', () => {
    const big = 2n ** 60n;
    expect(usageNanoCores(at(0, big), at(1, big + 3n))).toBe(3n);
  });

  it.each([
    ['there is no previous sample', undefined, at(1, 5n)],
    ['no time passed', at(1, 5n), at(1, 9n)],
    ['the counter went backwards (a re-created container)', at(1, 9n), at(2, 5n)],
  ])('is absent when %s', (_what, prev, cur) => {
    expect(usageNanoCores(prev, cur)).toBeUndefined();
  });
});
