import { describe, expect, it } from 'vitest';
import { callSlots } from '../../../src/adapters/fs/call-slots.js';
import { inlineCalls, limitedCalls, threadPoolCalls } from '../../../src/adapters/volumes/fs-calls.js';

describe('inlineCalls', () => {
  it('lets the event loop turn every few milliseconds during a long run of calls', async () => {
    // Turns of the event loop, timed by a chain of setImmediate callbacks.
    let last = performance.now();
    let maxGap = 0;
    let turns = 0;
    let stop = false;
    const tick = () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      turns++;
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    // Lets the turn counter start before the calls do; the test is about turns, so it waits one.
    await new Promise((resolve) => setImmediate(resolve));
    // Calls back to back until the loop has turned five times among them (a few slices), or for
    // 10 s if it does not: judged by what happened, not by how many calls fit in a time.
    const turnsBefore = turns;
    const started = performance.now();
    let calls = 0;
    while (turns - turnsBefore < 5 && performance.now() - started < 10_000) {
      await inlineCalls.stat('/');
      calls++;
    }
    stop = true;
    expect(turns - turnsBefore).toBeGreaterThanOrEqual(5);
    // Many calls a turn: they run inline, not one per turn as through the thread pool.
    expect(calls).toBeGreaterThan(5 * 5);
    expect(maxGap).toBeLessThan(100);
  });

  it('answers a call at once in a fresh turn of the loop, and a failure as a rejection', async () => {
    // Starts in a fresh turn, as the test's name says; not a wait for anything.
    await new Promise((resolve) => setImmediate(resolve));
    let answered = false;
    void inlineCalls.lstat('/').then(() => (answered = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(answered).toBe(true);
    await expect(inlineCalls.lstat('/no/such/path')).rejects.toThrow('ENOENT');
  });
});

describe('limitedCalls', () => {
  it('runs every call in one of the slots', async () => {
    const slots = callSlots(1);
    const calls = limitedCalls(threadPoolCalls, slots);
    const first = calls.stat('/');
    const second = calls.lstat('/');
    expect([slots.busy, slots.waiting]).toEqual([1, 1]);
    expect((await first).isDirectory()).toBe(true);
    expect((await second).isDirectory()).toBe(true);
    expect([slots.busy, slots.waiting]).toEqual([0, 0]);
  });
});
