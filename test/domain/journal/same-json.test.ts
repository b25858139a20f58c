import { describe, expect, it } from 'vitest';
import { sameJson } from '../../../src/domain/journal/same-json.js';

describe('sameJson', () => {
  it.each([
    [{ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }],
    ['running', 'running'],
    [null, null],
    [[], []],
  ])('tells equal JSON values equal, key order aside: %j', (a, b) => {
    expect(sameJson(a, b)).toBe(true);
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
  ])('tells different ones apart: %j and %j', (a, b) => {
    expect(sameJson(a, b)).toBe(false);
    expect(sameJson(b, a)).toBe(false);
  });
});
