/**
 * The clock of a replay: only the log moves it, and its timers never fire on their own. A timer's
 * firing is an input in the log (`xstate.after.*`), and the replay feeds it like any other input;
 * letting the clock fire it too would deliver it twice.
 */
import type { Clock } from '../../ports/clock.js';

export class ReplayClock implements Clock {
  private time = 0;
  private nextId = 1;
  readonly pending = new Map<number, number>();

  now(): number {
    return this.time;
  }

  set(ms: number): void {
    this.time = ms;
  }

  setTimeout(_fn: (...args: unknown[]) => void, ms: number): number {
    const id = this.nextId++;
    this.pending.set(id, this.time + ms);
    return id;
  }

  clearTimeout(id: unknown): void {
    this.pending.delete(id as number);
  }
}
