/**
 * A call for each item, at most `limit` of them under way at once, failing as a whole as
 * allOrFirstError does (volumes/settled-calls.ts): it answers only once every call it started has
 * ended, and after a failure it starts no more. Work over a list a pod controls (a volume's keys,
 * the node's processes) goes through here, so that its size sets how long the work takes, never
 * how many files are open or how many calls wait in the thread pool's queue.
 */
export async function allBounded<T, R>(items: readonly T[], limit: number, call: (item: T) => Promise<R>): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`allBounded: limit must be a positive integer, not ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  // The failures, by the index of their item: the first in the items' order is the answer.
  const failures = new Map<number, unknown>();
  const worker = async () => {
    while (failures.size === 0 && next < items.length) {
      const index = next++;
      try {
        results[index] = await call(items[index]!);
      } catch (reason) {
        failures.set(index, reason);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return results;
}
