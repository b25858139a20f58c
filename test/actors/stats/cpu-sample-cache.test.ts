import { describe, expect, it } from 'vitest';
import { CpuSampleCache } from '../../../src/actors/stats/cpu-sample-cache.js';

const S = 1_000_000_000n;

describe('CpuSampleCache', () => {
  const at = (s: bigint, cpu: bigint) => ({ timestampNs: s * S, usageCoreNanoSeconds: cpu });

  it('keeps a sample until it is the window old, then takes the new one; drops keys no longer seen', () => {
    const cache = new CpuSampleCache(10n * S);
    cache.update(new Map([['a', at(0n, 1n)], ['b', at(0n, 1n)]]));
    cache.update(new Map([['a', at(5n, 2n)]]));
    expect([...cache.previous()]).toEqual([['a', at(0n, 1n)]]);
    cache.update(new Map([['a', at(10n, 3n)]]));
    expect(cache.previous().get('a')).toEqual(at(10n, 3n));
  });

  it('takes the new sample at once when the counter went backwards (a new container under the key)', () => {
    const cache = new CpuSampleCache(10n * S);
    cache.update(new Map([['a', at(0n, 100n)]]));
    cache.update(new Map([['a', at(1n, 5n)]]));
    expect(cache.previous().get('a')).toEqual(at(1n, 5n));
  });
});
