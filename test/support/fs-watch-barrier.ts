import { watch } from 'node:fs';

/**
 * Resolves once a watch of its own on `dir` sees `name`: an ordering barrier for asserting that
 * another watch of `dir` did nothing about that change. libuv reads one inotify queue per loop and
 * hands each event to every watch of the directory in the same turn, so by the time this resolves
 * (a turn later) the watch under test has had the event too. Create it before making the change.
 */
export function seenByAnotherWatch(dir: string, name: string): Promise<void> {
  return new Promise((resolve) => {
    const observer = watch(dir, { persistent: false }, (_type, filename) => {
      if (String(filename) !== name) return;
      setImmediate(() => {
        observer.close();
        resolve();
      });
    });
  });
}
