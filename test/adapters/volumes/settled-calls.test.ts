import { describe, expect, it } from 'vitest';
import { allOrFirstError } from '../../../src/adapters/volumes/settled-calls.js';

/** A call the test settles itself, so the order in which calls settle is set, not timed. */
function call<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, fail: (message: string) => reject(new Error(message)) };
}

/** Every callback queued by what has settled so far has run. */
const settled = () => new Promise((r) => setImmediate(r));

describe('allOrFirstError', () => {
  it('answers every call\'s value, in the calls\' order, with their types', async () => {
    const [first, second] = [call<number>(), call<string>()];
    const all = allOrFirstError([first.promise, second.promise]);
    second.resolve('two');
    first.resolve(1);
    const [n, text] = await all;
    expect([n + 1, text.toUpperCase()]).toEqual([2, 'TWO']);
  });

  it('fails with the first failure in the calls\' order, not the first in time', async () => {
    const [late, early] = [call<string>(), call<string>()];
    const all = allOrFirstError([late.promise, early.promise]);
    early.fail('early');
    await settled();
    late.fail('late');
    await expect(all).rejects.toThrow('late');
  });

  it('answers a failure only once every call has ended', async () => {
    const [quick, slow] = [call<string>(), call<string>()];
    let answered = false;
    const all = allOrFirstError([quick.promise, slow.promise]);
    all.catch(() => undefined).finally(() => (answered = true));
    quick.fail('quick');
    await settled();
    expect(answered).toBe(false);
    slow.resolve('slow');
    await expect(all).rejects.toThrow('quick');
  });
});
