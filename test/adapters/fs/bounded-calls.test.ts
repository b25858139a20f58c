import { describe, expect, it } from 'vitest';
import { allBounded } from '../../../src/adapters/fs/bounded-calls.js';

/** A simulated call length of one turn of the loop, not a wait: some calls end later than others. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A call that records how many calls are under way, and the most ever. */
function counted<T, R>(call: (item: T) => Promise<R>) {
  const stats = { now: 0, max: 0, started: [] as T[] };
  const run = async (item: T) => {
    stats.started.push(item);
    stats.max = Math.max(stats.max, ++stats.now);
    try {
      return await call(item);
    } finally {
      stats.now--;
    }
  };
  return { run, stats };
}

describe('allBounded', () => {
  it('has at most `limit` calls under way over 10,000 items, and answers every value in the items\' order', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => i);
    const { run, stats } = counted(async (i: number) => {
      if (i % 7 === 0) await tick();
      return i * 2;
    });
    const results = await allBounded(items, 8, run);
    expect(results).toEqual(items.map((i) => i * 2));
    expect(stats.max).toBe(8);
  });

  it('starts no call after a failure, waits for those under way, and fails with the first failure in the items\' order', async () => {
    const ended: number[] = [];
    const { run, stats } = counted(async (i: number) => {
      // Simulated call lengths, not waits: item 1 fails after the others have started.
      await new Promise((resolve) => setTimeout(resolve, i === 1 ? 20 : 1));
      ended.push(i);
      if (i === 1 || i === 2) throw new Error(`item ${i}`);
    });
    await expect(allBounded([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3, run)).rejects.toThrow('item 1');
    // 2 fails first in time; 1 (under way then) ends before the answer and is the first in order.
    expect(ended).toContain(1);
    expect(stats.now).toBe(0);
    expect(stats.started.length).toBeLessThan(10);
  });

  it('answers an empty list at once, and refuses a limit that is not a positive integer', async () => {
    expect(await allBounded([], 4, async () => 1)).toEqual([]);
    await expect(allBounded([1], 0, async () => 1)).rejects.toThrow('allBounded: limit must be a positive integer, not 0');
    await expect(allBounded([1], 1.5, async () => 1)).rejects.toThrow('not 1.5');
  });
});
