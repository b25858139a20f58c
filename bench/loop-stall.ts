/**
 * The event loop's longest stall, from a timer of our own every `resolutionMs`: how much later than
 * due each tick ran. Node's monitorEventLoopDelay is not used because its reset also forgets when
 * the last tick ran, so the first interval after a reset is never recorded: a block that starts
 * right after a window opens would not show. Here a reset keeps that time.
 */
import { performance } from 'node:perf_hooks';

export interface StallMeter {
  /** The longest stall since the start or the last reset, in ms, and the ticks counted. */
  read(): { maxStallMs: number; samples: number };
  reset(): void;
  stop(): void;
}

export function startStallMeter(resolutionMs: number): StallMeter {
  let last = performance.now();
  let maxStallMs = 0;
  let samples = 0;
  let timer: NodeJS.Timeout;
  const tick = () => {
    const now = performance.now();
    maxStallMs = Math.max(maxStallMs, now - last - resolutionMs);
    samples++;
    last = now;
    timer = setTimeout(tick, resolutionMs).unref();
  };
  timer = setTimeout(tick, resolutionMs).unref();
  return {
    // A tick that is late now counts too, though it has not run yet.
    read: () => ({ maxStallMs: Math.max(maxStallMs, performance.now() - last - resolutionMs, 0), samples }),
    reset: () => {
      maxStallMs = 0;
      samples = 0;
    },
    stop: () => clearTimeout(timer),
  };
}
