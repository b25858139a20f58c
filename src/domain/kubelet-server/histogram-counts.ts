/**
 * A cumulative histogram kept as counts, for a long-running kubelet: holding every observation
 * would grow without end, so whoever records durations (PLEG relists, pod starts, pod syncs) keeps
 * one of these per metric and the view hands it to `/metrics` as is. Bounds and sum are in seconds,
 * as Prometheus wants them; `recordMs` takes the milliseconds the kubelet measures.
 */

export interface HistogramCounts {
  /** Upper bounds in seconds, ascending. */
  readonly buckets: readonly number[];
  /** counts[i]: observations ≤ buckets[i] (cumulative). */
  counts: number[];
  count: number;
  sumSeconds: number;
}

export function newHistogramCounts(buckets: readonly number[]): HistogramCounts {
  return { buckets, counts: buckets.map(() => 0), count: 0, sumSeconds: 0 };
}

/** Adds one observation in place; returns the same histogram. */
export function recordMs(h: HistogramCounts, ms: number): HistogramCounts {
  const s = ms / 1000;
  for (let i = 0; i < h.buckets.length; i++) if (s <= h.buckets[i]!) h.counts[i]! += 1;
  h.count += 1;
  h.sumSeconds += s;
  return h;
}

/** Counts from a list of observations in milliseconds, for views that keep short lists. */
export function countsFromMs(buckets: readonly number[], ms: readonly number[]): HistogramCounts {
  const h = newHistogramCounts(buckets);
  for (const v of ms) recordMs(h, v);
  return h;
}

/**
 * Adds `count` observations known only by their distribution: points of (percentile 0–100, value in
 * ms), as Node's event-loop delay monitor reports them, and their sum. A bucket gets the share of
 * the highest percentile whose value is within its bound, so the counts err towards slower: a
 * quantile read back is never below the true one, at the resolution of the points.
 */
export function recordDistributionMs(h: HistogramCounts, points: ReadonlyArray<readonly [percentile: number, ms: number]>, count: number, sumMs: number): HistogramCounts {
  if (count <= 0) return h;
  for (let i = 0; i < h.buckets.length; i++) {
    const boundMs = h.buckets[i]! * 1000;
    let share = 0;
    for (const [p, ms] of points) if (ms <= boundMs && p > share) share = p;
    h.counts[i]! += Math.round((count * Math.min(share, 100)) / 100);
  }
  h.count += count;
  h.sumSeconds += sumMs / 1000;
  return h;
}
