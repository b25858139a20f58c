/**
 * The real clock's timers. Node fires a timer of more than 2^31-1 ms (24.8 days) after 1 ms, with
 * a TimeoutOverflowWarning: a certificate of a year, renewed at 70–90 % of it, was renewed again
 * and again, a CSR every few milliseconds, until the long wait was split into hops.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/adapters/system-clock.js';

const DAY_MS = 24 * 3600_000;

// Fake timers throughout: the timers under test are advanced by hand, nothing here waits.
beforeEach(() => { vi.useFakeTimers(); });
afterEach(() => { vi.useRealTimers(); });

describe('systemClock', () => {
  it('fires a timer longer than Node\'s 2^31-1 ms limit when it is due, not at once', () => {
    const fired = vi.fn();
    // The timer under test, on the fake clock.
    systemClock.setTimeout(fired, 300 * DAY_MS);
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300 * DAY_MS - 1001);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('clears a long timer after its first hop as before it', () => {
    const early = vi.fn();
    const late = vi.fn();
    // The timer under test, on the fake clock.
    const a = systemClock.setTimeout(early, 60 * DAY_MS);
    const b = systemClock.setTimeout(late, 60 * DAY_MS);
    systemClock.clearTimeout(a);
    vi.advanceTimersByTime(30 * DAY_MS);
    systemClock.clearTimeout(b);
    vi.advanceTimersByTime(60 * DAY_MS);
    expect(early).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it('keeps short timers as Node\'s own', () => {
    const fired = vi.fn();
    // The timer under test, on the fake clock.
    systemClock.setTimeout(fired, 50);
    vi.advanceTimersByTime(49);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });
});
