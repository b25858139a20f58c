import type { Clock } from '../ports/clock.js';

/**
 * Node fires a timer of more than 2^31-1 ms (24.8 days) after 1 ms. A year's certificate is renewed
 * months ahead, so such a wait is run as hops of at most that long, re-armed from the wall clock.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

class LongTimer {
  current: NodeJS.Timeout | undefined;

  constructor(private readonly fn: () => void, private readonly dueAtMs: number) {
    this.arm();
  }

  private arm(): void {
    const left = this.dueAtMs - Date.now();
    this.current = left > MAX_TIMER_MS ? setTimeout(() => this.arm(), MAX_TIMER_MS) : setTimeout(this.fn, Math.max(0, left));
  }
}

/** The real clock: wall-clock milliseconds and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => (ms > MAX_TIMER_MS ? new LongTimer(fn, Date.now() + ms) : setTimeout(fn, ms)),
  clearTimeout: (id) => clearTimeout(id instanceof LongTimer ? id.current : (id as NodeJS.Timeout)),
};
