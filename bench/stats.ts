/** Order statistics for benchmark samples (nearest-rank, as the figures in ANCHORS.md are). */

/** The p-th percentile (0 < p ≤ 100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

/** Rounds to a fixed number of decimals, for printing (the figures go into a Markdown table). */
export const round = (value: number, decimals = 2): number => Number(value.toFixed(decimals));
