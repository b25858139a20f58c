import { describe, expect, it } from 'vitest';
import { allOrFirstError } from '../../../src/adapters/volumes/settled-calls.js';

// Simulated call lengths: the order in which calls settle is what the tests vary.
const after = <T>(ms: number, value: T, fail = false) => new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms));

describe('allOrFirstError', () => {
  it('answers every call\'s value, in the calls\' order, with their types', async () => {
    const [n, text] = await allOrFirstError([after(5, 1), after(1, 'two')]);
    expect([n + 1, text.toUpperCase()]).toEqual([2, 'TWO']);
  });

  it('fails with the first failure in the calls\' order, not the first in time', async () => {
    await expect(allOrFirstError([after(10, 'late', true), after(1, 'early', true)])).rejects.toThrow('late');
  });

  it('answers a failure only once every call has ended', async () => {
    let slowEnded = false;
    const slow = after(20, 'slow').then((v) => {
      slowEnded = true;
      return v;
    });
    await expect(allOrFirstError([after(1, 'quick', true), slow])).rejects.toThrow('quick');
    expect(slowEnded).toBe(true);
  });
});
