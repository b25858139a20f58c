import { describe, expect, it } from 'vitest';
import { getAtPath, jsonMergePatch, setAtPath } from '../../../src/domain/config/merge.js';

// RFC 7386 examples, which jsonpatch.MergePatch (used for --config-dir drop-ins) implements.
describe('jsonMergePatch', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{ a: { b: 1, c: 2 } }, { a: { c: 3, d: 4 } }, { a: { b: 1, c: 3, d: 4 } }],
  ])('patches %j with %j', (target, patch, result) => {
    expect(jsonMergePatch(target, patch)).toEqual(result);
  });

  it('does not modify its inputs', () => {
    const target = { a: { b: 1 } };
    jsonMergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('setAtPath / getAtPath', () => {
  it('creates the objects on the way and reads them back', () => {
    const o: Record<string, unknown> = {};
    setAtPath(o, 'authentication.anonymous.enabled', true);
    expect(o).toEqual({ authentication: { anonymous: { enabled: true } } });
    expect(getAtPath(o, 'authentication.anonymous.enabled')).toBe(true);
    expect(getAtPath(o, 'authentication.webhook.enabled')).toBeUndefined();
  });
});
