/** Order statistics for benchmark samples: percentiles by nearest rank (as the Go kubelet's figures we compare with are), the usual median. */

/** The p-th percentile (0 < p ≤ 100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/**
 * The middle sample, or the mean of the two middle ones for an even count: the nearest rank alone
 * would take the lower of the two, so a median of two runs would always report the better one.
 */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds to a fixed number of decimals, for printing (the figures go into a Markdown table). */
export const round = (value: number, decimals = 2): number => Number(value.toFixed(decimals));

/** How much each counter grew between two readings (those that grew). */
export function counterGrowth(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const grown = new Map<string, number>();
  for (const [key, n] of after) if (n - (before.get(key) ?? 0) > 0) grown.set(key, n - (before.get(key) ?? 0));
  return grown;
}
