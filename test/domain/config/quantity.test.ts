import { describe, expect, it } from 'vitest';
import { isQuantity, percentageValue, quantityValue } from '../../../src/domain/config/quantity.js';

describe('quantity', () => {
  it.each([
    ['100Mi', 100 * 2 ** 20],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['200m', 0.2],
    ['1k', 1000],
    ['1e3', 1000],
    ['10', 10],
    ['0', 0],
  ])('reads %s', (text, value) => {
    expect(isQuantity(text)).toBe(true);
    expect(quantityValue(text)).toBeCloseTo(value, 9);
  });

  it.each(['', 'Mi', '1Q', '1.2.3', '10%', 'abc'])('rejects %j', (text) => {
    expect(isQuantity(text)).toBe(false);
    expect(quantityValue(text)).toBeUndefined();
  });

  it('reads percentages for eviction thresholds', () => {
    expect(percentageValue('10%')).toBe(10);
    expect(percentageValue('7.5%')).toBe(7.5);
    expect(percentageValue('10')).toBeUndefined();
  });
});
