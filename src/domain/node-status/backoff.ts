/**
 * The node side's retry back-off (Go: registerWithAPIServer and the lease controller's
 * backoffEnsureLease): 100 ms, doubled after each failure, capped at 7 s.
 */
export const RETRY_INITIAL_MS = 100;
export const RETRY_MAX_MS = 7_000;

/** The delay before retry number `failures` (1 = after the first failure). */
export function retryDelayMs(failures: number): number {
  if (failures <= 1) return RETRY_INITIAL_MS;
  return Math.min(RETRY_MAX_MS, RETRY_INITIAL_MS * 2 ** (failures - 1));
}

/** wait.JitterUntil's period: `period × (1 + factor × jitter)` with jitter in [0, 1). */
export function jitteredMs(periodMs: number, factor: number, jitter: number): number {
  const j = Math.min(Math.max(jitter, 0), 1);
  return Math.round(periodMs * (1 + factor * j));
}
