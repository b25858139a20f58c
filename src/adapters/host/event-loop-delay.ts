/**
 * The event loop's delay, from Node's own monitor (perf_hooks.monitorEventLoopDelay): a libuv timer
 * every `resolutionMs` that records how long each interval really took. The delay is what exceeds
 * the resolution. Every `foldEveryMs` the monitor's distribution is folded into a cumulative
 * histogram (so a scraper, or a benchmark reading /metrics before and after, sees any window it
 * likes) and the monitor is reset; the largest delay of each fold feeds a last-minute maximum.
 * A second figure beside the syncLoop's lag: this one covers every callback, not only the kubelet's
 * timers.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { newHistogramCounts, recordDistributionMs, type HistogramCounts } from '../../domain/kubelet-server/histogram-counts.js';
import { LAG_BUCKETS } from '../../domain/kubelet-server/kubelet-metrics.js';
import { RecentMax } from '../../domain/kubelet-server/recent-max.js';
import type { Clock } from '../../ports/clock.js';

export interface EventLoopDelayMeter {
  readonly histogram: HistogramCounts;
  /** The largest delay of the last minute, in ms (0 when none). */
  recentMaxMs(): number;
  stop(): void;
}

/**
 * The monitor's timer wakes the process every `resolutionMs` even on a quiet node, and each wake-up
 * costs CPU: sampled every 10 or 100 ms, the monitor alone is a visible share of an idle node's CPU
 * (docs/FINDINGS.md). At 1 s it wakes the process no more often than the PLEG's relist does.
 * A long block still shows whole when it holds up a sample; shorter ones are sampled less often.
 */
export const EVENT_LOOP_SAMPLE_MS = 1000;

/** Each fold is a timer of its own: every 5 s, so a quiet second wakes the process for it only a fifth of the time. */
export const EVENT_LOOP_FOLD_MS = 5000;

export function startEventLoopDelayMeter(clock: Clock, { resolutionMs = EVENT_LOOP_SAMPLE_MS, foldEveryMs = EVENT_LOOP_FOLD_MS } = {}): EventLoopDelayMeter {
  const monitor = monitorEventLoopDelay({ resolution: resolutionMs });
  monitor.enable();
  const histogram = newHistogramCounts(LAG_BUCKETS);
  const recent = new RecentMax(60);
  const delayMs = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  const fold = () => {
    if (monitor.count > 0) {
      const points = [...monitor.percentiles].map(([p, ns]) => [p, delayMs(ns)] as const);
      // The sum is the mean's delay times the count: exact unless some intervals were shorter than the resolution.
      recordDistributionMs(histogram, points, monitor.count, delayMs(monitor.mean) * monitor.count);
      recent.record(clock.now(), delayMs(monitor.max));
      monitor.reset();
    }
    timer = clock.setTimeout(fold, foldEveryMs);
  };
  let timer = clock.setTimeout(fold, foldEveryMs);
  return {
    histogram,
    recentMaxMs: () => recent.max(clock.now()),
    stop: () => {
      clock.clearTimeout(timer);
      monitor.disable();
    },
  };
}
