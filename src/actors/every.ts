/**
 * A periodic loop on the injected clock: the first run one period after the start, each next one a
 * period after the last ended, so runs never overlap (Go's wait.Until without its first immediate
 * run: nothing is due at start-up). Answers how to stop it.
 */
import type { Clock } from '../ports/clock.js';

export function every(clock: Clock, periodMs: number, run: () => Promise<void>): () => void {
  let stopped = false;
  let timer: unknown;
  const tick = async () => {
    await run();
    if (!stopped) timer = clock.setTimeout(() => void tick(), periodMs);
  };
  timer = clock.setTimeout(() => void tick(), periodMs);
  return () => {
    stopped = true;
    clock.clearTimeout(timer);
  };
}
