import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { FirstRegistration } from '../../../src/actors/phases/first-registration.js';

/**
 * One turn of the event loop, for the checks that a waiter has *not* woken: every promise callback
 * the clock's timer or an answer set off has run by then, so a wrong wake-up shows.
 */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function watch(p: Promise<void>) {
  const state = { done: false };
  void p.then(() => (state.done = true));
  return state;
}

describe('FirstRegistration', () => {
  it('wakes a waiter on the first answer, before its bound, and clears its timer', async () => {
    const clock = new SimulatedClock();
    const first = new FirstRegistration();
    const waiting = watch(first.wait(clock, 500));
    clock.increment(100);
    await flush();
    expect(waiting.done).toBe(false);
    first.answer();
    await expect.poll(() => waiting.done).toBe(true);
    // No timer left behind to fire later.
    expect((clock as unknown as { timeouts: Map<unknown, unknown> }).timeouts.size).toBe(0);
  });

  it('gives up after its bound when no answer comes: an API server that never answers keeps nothing down', async () => {
    const clock = new SimulatedClock();
    const waiting = watch(new FirstRegistration().wait(clock, 500));
    clock.increment(499);
    await flush();
    expect(waiting.done).toBe(false);
    clock.increment(1);
    await expect.poll(() => waiting.done).toBe(true);
  });

  it('does not wait at all once answered, and later answers change nothing', async () => {
    const clock = new SimulatedClock();
    const first = new FirstRegistration();
    first.answer();
    first.answer();
    const waiting = watch(first.wait(clock, 500));
    await expect.poll(() => waiting.done).toBe(true);
  });
});
