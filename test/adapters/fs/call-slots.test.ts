import { describe, expect, it } from 'vitest';
import { callSlots } from '../../../src/adapters/fs/call-slots.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('callSlots', () => {
  it('runs at most `size` calls at once across callers, the rest waiting first come first served', async () => {
    const slots = callSlots(2);
    const gates = Array.from({ length: 5 }, deferred);
    const began: number[] = [];
    const runs = gates.map((gate, i) => slots.run(async () => {
      began.push(i);
      await gate.promise;
      return i;
    }));
    await Promise.resolve();
    expect(began).toEqual([0, 1]);
    expect([slots.busy, slots.waiting]).toEqual([2, 3]);
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(began).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await Promise.all([runs[0], runs[2]]);
    await Promise.resolve();
    expect(began).toEqual([0, 1, 2, 3, 4]);
    gates[3]!.resolve();
    gates[4]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect([slots.busy, slots.waiting]).toEqual([0, 0]);
  });

  it('frees the slot of a call that fails, and passes the failure on', async () => {
    const slots = callSlots(1);
    const gate = deferred();
    const failing = slots.run(() => gate.promise);
    const next = slots.run(async () => 'next');
    gate.reject(new Error('EMFILE'));
    await expect(failing).rejects.toThrow('EMFILE');
    expect(await next).toBe('next');
    expect(slots.busy).toBe(0);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => callSlots(0)).toThrow('callSlots: size must be a positive integer, not 0');
  });
});
