/**
 * Waiting for a condition that only changes when the test records something (an event a callback
 * delivered, a watch opened): whatever records calls `changed()`, which checks every pending wait
 * at once. No polling, no sleeping; the only timer is the deadline that turns a missing event into
 * a failure naming what was awaited.
 */
export interface ChangeWaiter {
  /** Call after recording anything a pending condition may read. */
  changed(): void;
  /** Resolves as soon as `condition()` holds (now or after a later `changed()`); rejects after `timeoutMs`. */
  until(condition: () => boolean, what: () => string, timeoutMs?: number): Promise<void>;
}

export function createChangeWaiter(): ChangeWaiter {
  const pending = new Set<() => void>();
  return {
    changed() {
      for (const check of [...pending]) check();
    },
    until(condition, what, timeoutMs = 5000) {
      if (condition()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const finish = () => {
          clearTimeout(deadline);
          pending.delete(check);
        };
        const check = () => {
          if (!condition()) return;
          finish();
          resolve();
        };
        // A deadline, not a wait: the change normally comes first and clears it.
        const deadline = setTimeout(() => {
          finish();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
        }, timeoutMs);
        pending.add(check);
      });
    },
  };
}
