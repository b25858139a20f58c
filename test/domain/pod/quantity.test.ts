import { describe, expect, it } from 'vitest';
import { parseQuantity, quantityMilliValue, quantityValue, compareQuantities } from '../../../src/domain/pod/quantity.js';

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
  ])('reads %s exactly (milli %s, value rounded up %s)', (text, milli, value) => {
    const q = parseQuantity(text);
    expect(quantityMilliValue(q)).toBe(milli);
    expect(quantityValue(q)).toBe(value);
  });

  it.each(['', 'abc', '1Xi', '1.2.3', 'm'])('rejects %j with KLT_ERR_POD_SPEC_INVALID', (text) => {
    expect(() => parseQuantity(text)).toThrow(expect.objectContaining({ code: 'KLT_ERR_POD_SPEC_INVALID' }));
  });

  it('compares across suffixes', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1024Mi'))).toBe(0);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).toBe(-1);
    expect(compareQuantities(parseQuantity('1'), parseQuantity('999m'))).toBe(1);
  });
});
