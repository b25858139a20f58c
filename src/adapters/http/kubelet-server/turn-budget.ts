/**
 * Spreads request handling over event-loop turns, so the kubelet's own timers run between them.
 *
 * Node handles every socket that became readable in one poll phase before it runs timers again: with
 * many clients each asking for a large PodList, one turn can hold the loop for hundreds of
 * milliseconds, and the PLEG's relist or a pod's resync waits that long (docs/FINDINGS.md).
 * Go has no such problem: its handlers are goroutines, preempted, and the syncLoop is another.
 *
 * So each request enters a slice that starts with the first request after a quiet spell and ends
 * at the next timers phase; a request that finds the slice has run `budgetMs` waits for a later
 * turn (a 0 ms timer: it runs after the timers that fell due before it, the syncLoop's among them)
 * and then tries again. Nothing is dropped and the order is kept; requests only queue, as they
 * would on a busier socket.
 */
import { performance } from 'node:perf_hooks';

export interface TurnBudget {
  /** Undefined: go on at once; a promise: go on when it settles. */
  enter(): Promise<void> | undefined;
}

export interface TurnClock {
  now(): number;
  /** Run `fn` in a later turn's timers phase. */
  later(fn: () => void): void;
}

const nodeTurns: TurnClock = { now: () => performance.now(), later: (fn) => void setTimeout(fn, 0) };

export function createTurnBudget(budgetMs: number, turns: TurnClock = nodeTurns): TurnBudget {
  let sliceStartedAt: number | null = null;
  const enter = (): Promise<void> | undefined => {
    const now = turns.now();
    if (sliceStartedAt === null) {
      sliceStartedAt = now;
      turns.later(() => (sliceStartedAt = null));
      return undefined;
    }
    if (now - sliceStartedAt < budgetMs) return undefined;
    return new Promise((resume) => turns.later(() => void (enter() ?? Promise.resolve()).then(resume)));
  };
  return { enter };
}
