/**
 * One call at a time, and what arrives while it runs goes together in the next: for work whose
 * fixed cost dwarfs its cost per item (mount(8) loads its libraries and reads the mount table
 * whatever it mounts), so a burst of requests pays that cost a few times instead of once each.
 * A request made while nothing runs starts at once: nobody waits to be batched. A request never
 * joins a call already running, so every call it is part of starts after it was made.
 */

/** What `runAll` answers for each item, in the items' order: undefined for done, or why it failed. */
export type ItemOutcome = Error | undefined;

export function coalescedCalls<T>(runAll: (items: readonly T[]) => Promise<readonly ItemOutcome[]>): (item: T) => Promise<void> {
  let waiting: { item: T; resolve: () => void; reject: (error: Error) => void }[] = [];
  let running = false;

  function startNext(): void {
    if (running || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    running = true;
    runAll(batch.map((w) => w.item))
      .then(
        (outcomes) => batch.forEach((w, i) => {
          const error = outcomes[i];
          if (error === undefined) w.resolve();
          else w.reject(error);
        }),
        (error: unknown) => batch.forEach((w) => w.reject(error instanceof Error ? error : new Error(String(error)))),
      )
      .finally(() => {
        running = false;
        startNext();
      });
  }

  return (item) => new Promise<void>((resolve, reject) => {
    waiting.push({ item, resolve, reject });
    startNext();
  });
}
