import { describe, expect, it } from 'vitest';
import { createTurnBudget, type TurnClock } from '../../../../src/adapters/http/kubelet-server/turn-budget.js';

/** Turns by hand: `now` is set by the test, `later` callbacks run when the test ends a turn. */
class HandTurns implements TurnClock {
  time = 0;
  private queue: (() => void)[] = [];
  now = () => this.time;
  later = (fn: () => void) => void this.queue.push(fn);
  /** The next timers phase: what was queued before it, in order, each taking `costMs`. */
  async nextTurn(costMs = 0): Promise<void> {
    const due = this.queue;
    this.queue = [];
    for (const fn of due) {
      fn();
      this.time += costMs;
    }
    // The fake loop's turn ends with a real one, so what the work scheduled runs before the next.
    await new Promise((r) => setImmediate(r));
  }
}

describe('createTurnBudget', () => {
  it('lets requests through at once while the turn is within its budget', () => {
    const turns = new HandTurns();
    const budget = createTurnBudget(20, turns);
    expect(budget.enter()).toBeUndefined();
    turns.time = 19;
    expect(budget.enter()).toBeUndefined();
  });

  it('makes a request past the budget wait for a later turn, in arrival order', async () => {
    const turns = new HandTurns();
    const budget = createTurnBudget(20, turns);
    const order: string[] = [];
    budget.enter();
    turns.time = 25; // the turn has held the loop for 25 ms
    void budget.enter()!.then(() => order.push('a'));
    void budget.enter()!.then(() => order.push('b'));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    await turns.nextTurn(); // the slice ends first, then the waiting requests go on
    expect(order).toEqual(['a', 'b']);
  });

  it('carries what the next turn cannot take over to the turn after', async () => {
    const turns = new HandTurns();
    const budget = createTurnBudget(20, turns);
    const done: string[] = [];
    budget.enter();
    turns.time = 30;
    for (const r of ['a', 'b', 'c']) void budget.enter()!.then(() => done.push(r));
    await turns.nextTurn(15); // each waiting request handled costs 15 ms: 'c' finds the new slice spent
    expect(done).toEqual(['a', 'b']);
    await turns.nextTurn(15);
    expect(done).toEqual(['a', 'b', 'c']);
  });

  it('starts a fresh slice after a quiet spell', async () => {
    const turns = new HandTurns();
    const budget = createTurnBudget(20, turns);
    budget.enter();
    await turns.nextTurn();
    turns.time = 1_000;
    expect(budget.enter()).toBeUndefined();
  });
});
