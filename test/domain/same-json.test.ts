import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/domain/same-json.js';

describe('sameJson', () => {
  it.each([
    [{ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }],
    ['running', 'running'],
    [null, null],
    [[], []],
    // As JSON.stringify writes them: an undefined value is no key, an undefined element is null.
    [{ a: 1, b: undefined }, { a: 1 }],
    [{ a: undefined }, {}],
    [[1, undefined], [1, null]],
  ])('tells equal JSON values equal, key order aside: %j', (a, b) => {
    expect(sameJson(a, b)).toBe(true);
    expect(sameJson(b, a)).toBe(true);
  });

  it.each([
    [{ a: 1 }, { a: 2 }],
    [{ a: 1 }, { a: 1, b: 1 }],
    [{ a: 1, b: 1 }, { a: 1, c: 1 }],
    [[1, 2], [1]],
    [[1], { 0: 1 }],
    [{}, []],
    [null, {}],
    [undefined, { value: 'a' }],
    ['1', 1],
    [{ a: undefined, b: 1 }, { a: 1 }],
    [{ a: null }, {}],
  ])('tells different ones apart: %j and %j', (a, b) => {
    expect(sameJson(a, b)).toBe(false);
    expect(sameJson(b, a)).toBe(false);
  });
});
