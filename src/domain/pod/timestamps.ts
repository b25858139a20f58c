/**
 * API timestamps (metav1.Time): RFC 3339 in UTC with whole seconds, as the API server stores them
 * ("2026-11-22T01:14:51Z"). Sources are CRI nanosecond strings or clock milliseconds; conversion
 * only, no clock reads.
 */

/** Milliseconds since the epoch → RFC 3339, truncated to the second as metav1.Time marshals. */
export function rfc3339FromMs(ms: number): string {
  const whole = Math.floor(ms / 1000) * 1000;
  return new Date(whole).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** CRI int64 nanoseconds (decimal string) → RFC 3339. Empty counts as zero (the epoch), as in Go. */
export function rfc3339FromNanos(ns: string): string {
  return rfc3339FromMs(Number(BigInt(ns || '0') / 1_000_000n));
}
