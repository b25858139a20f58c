/** File system calls that count themselves: how many are under way now, the most ever, and how many in all. */
import type { FsCalls } from '../../../src/adapters/volumes/fs-calls.js';

export interface CallCounts { now: number; max: number; total: number }

export function countedCalls(calls: FsCalls): { calls: FsCalls; counts: CallCounts } {
  const counts: CallCounts = { now: 0, max: 0, total: 0 };
  const counted = Object.fromEntries(Object.entries(calls).map(([name, call]) => [name, async (...args: unknown[]) => {
    counts.total++;
    counts.max = Math.max(counts.max, ++counts.now);
    try {
      return await (call as (...a: unknown[]) => Promise<unknown>)(...args);
    } finally {
      counts.now--;
    }
  }]));
  return { calls: counted as unknown as FsCalls, counts };
}
