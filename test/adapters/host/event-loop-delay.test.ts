import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { startEventLoopDelayMeter } from '../../../src/adapters/host/event-loop-delay.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startEventLoopDelayMeter', () => {
  it('folds the monitor into the histogram on its clock, a blocked loop showing as a delay', async () => {
    const clock = new SimulatedClock();
    const meter = startEventLoopDelayMeter(clock, { resolutionMs: 10, foldEveryMs: 1000 });
    try {
      await pause(60);
      const until = Date.now() + 80;
      while (Date.now() < until) { /* the loop is blocked for 80 ms */ }
      await pause(40);
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
