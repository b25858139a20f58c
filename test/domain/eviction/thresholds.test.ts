import { describe, expect, it } from 'vitest';
import { parseThresholdConfig, parseThresholdValue, thresholdQuantity } from '../../../src/domain/eviction/thresholds.js';

const empty = { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {} };

describe('parseThresholdValue', () => {
  it.each([
    ['100Mi', { quantity: 100 * 1024 * 1024, text: '100Mi' }],
    ['1G', { quantity: 1e9, text: '1G' }],
    ['0%', null],
    ['100%', null],
    ['0', null],
  ])('reads %s as Go does', (text, want) => {
    expect(parseThresholdValue(text)).toEqual(want);
  });

  it('keeps a percentage as Go float32 fraction', () => {
    expect(parseThresholdValue('10%')).toEqual({ percentage: Math.fround(0.1) });
  });
});

describe('parseThresholdConfig', () => {
  it('makes hard thresholds with grace 0 and soft ones with their grace period and minimum reclaim', () => {
    const { thresholds, errors } = parseThresholdConfig({
      ...empty,
      evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
      evictionSoft: { 'memory.available': '200Mi' },
      evictionSoftGracePeriod: { 'memory.available': '1m30s' },
      evictionMinimumReclaim: { 'memory.available': '50Mi' },
    });
    expect(errors).toEqual([]);
    expect(thresholds.map((t) => [t.kind, t.signal, t.gracePeriodMs, t.minReclaim !== undefined])).toEqual([
      ['hard', 'memory.available', 0, true],
      ['hard', 'nodefs.available', 0, false],
      ['soft', 'memory.available', 90_000, true],
    ]);
  });

  it('drops signals Go knows but we do not observe, and names unknown ones with Go message', () => {
    const { thresholds, errors } = parseThresholdConfig({ ...empty, evictionHard: { 'allocatableMemory.available': '1Gi', 'cpu.available': '1' } });
    expect(thresholds).toEqual([]);
    expect(errors).toEqual(['unsupported eviction signal cpu.available']);
  });
});

describe('thresholdQuantity', () => {
  it('takes a percentage of the capacity, truncated like int64(float64 × float32)', () => {
    expect(thresholdQuantity({ percentage: Math.fround(0.1) }, 1000)).toBe(100);
    expect(thresholdQuantity({ quantity: 5, text: '5' }, 1000)).toBe(5);
  });
});
