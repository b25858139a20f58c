/**
 * The Node's first registration answer (created, already there, or refused), which the kubelet
 * server's start waits for, for a bounded time. Loading and starting the server takes tens of
 * milliseconds of the one JS thread; spent while the Node's POST is in flight, it holds up that
 * answer, and with it the Node's Ready, by as much. Go serves and registers on threads of their
 * own, so neither waits for the other there.
 */
import type { Clock } from '../../ports/clock.js';

/** The longest the kubelet server waits: an API server that does not answer must not keep it down. */
export const SERVER_START_HOLD_MS = 500;

export class FirstRegistration {
  private answered = false;
  private readonly waiters: (() => void)[] = [];

  /** The registration effect got its first answer, whatever it was. */
  answer(): void {
    if (this.answered) return;
    this.answered = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves on the first answer, or after `maxMs` on `clock` if none came: never rejects. */
  wait(clock: Clock, maxMs: number): Promise<void> {
    if (this.answered) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => resolve(), maxMs);
      this.waiters.push(() => {
        clock.clearTimeout(timer);
        resolve();
      });
    });
  }
}
