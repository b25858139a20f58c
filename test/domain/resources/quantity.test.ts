import { describe, expect, it } from 'vitest';
import {
  compareQuantities, isQuantity, parseQuantity, quantityMilliValue, quantityNumber, quantityValue, tryParseQuantity,
} from '../../../src/domain/resources/quantity.js';
import { percentageValue } from '../../../src/domain/resources/percentage.js';

describe('parseQuantity', () => {
  it.each([
    ['100m', 100n, 1n],
    ['0.1', 100n, 1n],
    ['1', 1000n, 1n],
    ['1.5', 1500n, 2n],
    ['2k', 2_000_000n, 2000n],
    ['128Mi', 134217728000n, 134217728n],
    ['1Gi', 1073741824000n, 1073741824n],
    ['1G', 1_000_000_000_000n, 1_000_000_000n],
    ['1e3', 1_000_000n, 1000n],
    ['1E-3', 1n, 1n],
    ['500u', 1n, 1n],
    ['.5', 500n, 1n],
    ['5.', 5000n, 5n],
    ['1.G', 1_000_000_000_000n, 1_000_000_000n],
    ['+2', 2000n, 2n],
    ['1E', 1_000_000_000_000_000_000_000n, 1_000_000_000_000_000_000n],
    ['2e+2', 200_000n, 200n],
    ['007', 7000n, 7n],
  ])('reads %s exactly (milli %s, value rounded up %s)', (text, milli, value) => {
    const q = parseQuantity(text);
    expect(quantityMilliValue(q)).toBe(milli);
    expect(quantityValue(q)).toBe(value);
  });

  it.each([
    '', 'abc', '1Xi', '1.2.3', 'm', 'Mi', '.', '-.', '10Qi', '1.5.5Gi', 'NaN', 'Infinity', '1Q', '10%',
    '1e', '1e+', '1e3.5', '1Ki5', '0x10', '1,5',
  ])('rejects %j with KLT_ERR_POD_SPEC_INVALID, as Go\'s ParseQuantity does', (text) => {
    expect(() => parseQuantity(text)).toThrow(expect.objectContaining({ code: 'KLT_ERR_POD_SPEC_INVALID' }));
    expect(isQuantity(text)).toBe(false);
    expect(quantityNumber(text)).toBeUndefined();
  });

  it.each([' 1', '1 '])('rejects %j as a quantity but reads it from a decoded object, as Go\'s UnmarshalJSON trims', (text) => {
    expect(isQuantity(text)).toBe(false);
    expect(quantityValue(parseQuantity(text))).toBe(1n);
  });

  it('rejects a value that is not a string (a manifest number reaches it as such)', () => {
    expect(tryParseQuantity(5 as unknown as string)).toBeUndefined();
  });

  it('reads a negative quantity as negative', () => {
    const q = parseQuantity('-5Mi');
    expect(quantityValue(q)).toBe(-5n * 1024n * 1024n);
    expect(compareQuantities(q, parseQuantity('0'))).toBe(-1);
  });

  it('reads a lone sign as zero, like Go\'s scanner', () => {
    expect(quantityValue(parseQuantity('-'))).toBe(0n);
    expect(quantityValue(parseQuantity('+'))).toBe(0n);
  });

  it('rounds an amount finer than a nano up to the next nano, away from zero', () => {
    expect(compareQuantities(parseQuantity('0.1n'), parseQuantity('1n'))).toBe(0);
    expect(compareQuantities(parseQuantity('-0.1n'), parseQuantity('-1n'))).toBe(0);
  });

  it('compares across suffixes', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1024Mi'))).toBe(0);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).toBe(-1);
    expect(compareQuantities(parseQuantity('1'), parseQuantity('999m'))).toBe(1);
  });
});

describe('quantityNumber', () => {
  it.each([
    ['100Mi', 100 * 2 ** 20],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['200m', 0.2],
    ['1k', 1000],
    ['1e3', 1000],
    ['10', 10],
    ['0', 0],
    ['-1', -1],
  ])('reads %s', (text, value) => {
    expect(isQuantity(text)).toBe(true);
    expect(quantityNumber(text)).toBeCloseTo(value, 9);
  });
});

describe('percentageValue', () => {
  it('reads percentages for eviction thresholds', () => {
    expect(percentageValue('10%')).toBe(10);
    expect(percentageValue('7.5%')).toBe(7.5);
    expect(percentageValue('10')).toBeUndefined();
  });
});
