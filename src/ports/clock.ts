/**
 * The only source of time outside machines. Real: wall clock and timers; replay and unit tests:
 * a simulated clock advanced by hand. Its setTimeout/clearTimeout shape is XState's `clock` option,
 * so one object drives both actor delays (`after`) and adapter timers.
 */
export interface Clock {
  /** Milliseconds on this clock (logical time: simulated in tests and replay). */
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}
