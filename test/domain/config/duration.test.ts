import { describe, expect, it } from 'vitest';
import { DurationSyntaxError, formatGoDuration, normalizeGoDuration, parseGoDuration } from '../../../src/domain/config/duration.js';

// Expected strings are Go's time.Duration.String() / time.ParseDuration results.
describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['10s', 10_000],
    ['1m', 60_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2h45m', 9_900_000],
    ['100ms', 100],
    ['1.5s', 1500],
    ['.5s', 500],
    ['500us', 0.5],
    ['500µs', 0.5],
    ['1000ns', 0.001],
    ['-1m', -60_000],
    ['+5s', 5000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['10', 'time: missing unit in duration "10"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['abc', 'time: invalid duration "abc"'],
    ['1m-1s', 'time: unknown unit "m-" in duration "1m-1s"'],
    ['-', 'time: invalid duration "-"'],
  ])('rejects %j with Go\'s message', (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(DurationSyntaxError);
    expect(() => parseGoDuration(text)).toThrow(message);
  });
});

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [100, '100ms'],
    [1500, '1.5s'],
    [10_000, '10s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [14_400_000, '4h0m0s'],
    [3_661_500, '1h1m1.5s'],
    [0.5, '500µs'],
    [0.000_001, '1ns'],
    [-60_000, '-1m0s'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it('round-trips through parse into Go spelling', () => {
    expect(normalizeGoDuration('60s')).toBe('1m0s');
    expect(normalizeGoDuration('120m')).toBe('2h0m0s');
    expect(normalizeGoDuration('0.1s')).toBe('100ms');
  });
});
