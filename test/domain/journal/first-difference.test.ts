import { describe, expect, it } from 'vitest';
import { firstDifference, firstRecordDifference } from '../../../src/domain/journal/first-difference.js';

describe('firstDifference', () => {
  it('is null for equal JSON, whatever the key order', () => {
    expect(firstDifference({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBeNull();
  });

  it('names the first differing path, depth first with keys sorted, and both values', () => {
    expect(firstDifference({ input: { containers: [{ name: 'a' }], pod: 'p' } }, { input: { containers: [], pod: 'q' } }, 'payload'))
      .toEqual({ field: 'payload.input.containers.0', expected: { name: 'a' }, actual: undefined });
    expect(firstDifference({ b: 1, a: 2 }, { b: 2, a: 3 })).toEqual({ field: 'a', expected: 2, actual: 3 });
  });

  it('tells a missing key, a null and a type change apart', () => {
    expect(firstDifference({ a: null }, {})).toEqual({ field: 'a', expected: null, actual: undefined });
    expect(firstDifference({ a: [1] }, { a: { 0: 1 } })).toEqual({ field: 'a', expected: [1], actual: { 0: 1 } });
    expect(firstDifference(1, '1', 'x')).toEqual({ field: 'x', expected: 1, actual: '1' });
  });
});

describe('firstRecordDifference', () => {
  const record = { actor: 'pleg', kind: 'derived', type: 'action', name: 'schedule', source: null, payload: { delay: 1000 } };
  it('compares the record fields before the payload', () => {
    expect(firstRecordDifference(record, { ...record, name: 'raise', payload: { delay: 5 } })).toEqual({ field: 'name', expected: 'schedule', actual: 'raise' });
    expect(firstRecordDifference(record, { ...record, payload: { delay: 10_000 } })).toEqual({ field: 'payload.delay', expected: 1000, actual: 10_000 });
    expect(firstRecordDifference(record, { ...record })).toBeNull();
  });

  it('leaves out the fields it is not asked to compare (an input\'s sender)', () => {
    expect(firstRecordDifference(record, { ...record, source: 'x' }, ['actor', 'payload'])).toBeNull();
  });
});
