import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { startEventLoopDelayMeter } from '../../../src/adapters/host/event-loop-delay.js';

const RESOLUTION_MS = 10;
/**
 * Resolves after the monitor's next tick: the monitor is a libuv timer every RESOLUTION_MS, and
 * libuv runs due timers in the order they fall due, so a timer set now for a little longer falls
 * due after that tick, however late the loop runs either.
 */
const afterMonitorTick = () => new Promise((r) => setTimeout(r, RESOLUTION_MS + 1));

describe('startEventLoopDelayMeter', () => {
  it('folds the monitor into the histogram on its clock, a blocked loop showing as a delay', async () => {
    const clock = new SimulatedClock();
    const meter = startEventLoopDelayMeter(clock, { resolutionMs: RESOLUTION_MS, foldEveryMs: 1000 });
    try {
      // The monitor's first tick only starts its count: the interval it measures begins there.
      await afterMonitorTick();
      const until = Date.now() + 80;
      while (Date.now() < until) { /* the loop is blocked for 80 ms */ }
      // The tick after the block records the blocked interval.
      await afterMonitorTick();
      expect(meter.histogram.count).toBe(0); // nothing folded before the clock says so
      clock.increment(1000);
      const { count, counts, buckets } = meter.histogram;
      expect(count).toBeGreaterThan(0);
      // At least one interval ran 80 ms over: above the 50 ms bucket, and the minute's maximum.
      expect(counts[buckets.indexOf(0.05)]).toBeLessThan(count);
      expect(meter.recentMaxMs()).toBeGreaterThanOrEqual(50);
    } finally {
      meter.stop();
    }
  });
});
