/**
 * One call at a time per key: a call waits for every earlier call of its key to settle, whatever
 * their outcome; calls of other keys run alongside. Keys are forgotten once idle.
 */
export function keyedLock(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const next = (tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const settled = next.then(() => undefined, () => undefined);
    tails.set(key, settled);
    void settled.then(() => { if (tails.get(key) === settled) tails.delete(key); });
    return next;
  };
}
