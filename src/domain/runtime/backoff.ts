/**
 * Per-key exponential back-off, as client-go's flowcontrol.Backoff without jitter (the kubelet
 * uses none): the first failure waits `initialMs`, each failure within the window doubles it up to
 * `maxMs`, and a key untouched for 2 × maxMs starts over. Time is passed in, never read.
 */

export interface BackoffPolicy { initialMs: number; maxMs: number }

/** Image pulls: 10 s doubling to 300 s (kubelet backOffPeriod / MaxContainerBackOff). */
export const imagePullBackoffPolicy: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000 };
/** Container restarts (CrashLoopBackOff): the same 10 s → 300 s. */
export const containerRestartBackoffPolicy: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000 };

/**
 * Go's newCrashLoopBackOff with KubeletCrashLoopBackOffMax on (beta, on in v1.35):
 * crashLoopBackOff.maxContainerRestartPeriod (validated to 1 s – 300 s; defaulted to 5 min) caps
 * the restart back-off, and is the first wait too when it is shorter than 10 s.
 */
export function crashLoopBackoffPolicy(maxContainerRestartPeriodMs: number | undefined): BackoffPolicy {
  if (maxContainerRestartPeriodMs === undefined) return containerRestartBackoffPolicy;
  return { initialMs: Math.min(containerRestartBackoffPolicy.initialMs, maxContainerRestartPeriodMs), maxMs: maxContainerRestartPeriodMs };
}

/** One key's back-off: how long its last failure waits, and when that failure was. */
export interface BackoffEntry { readonly backoffMs: number; readonly lastUpdateMs: number }

/** A key untouched for 2 × maxMs starts over (client-go's hasExpired). */
export function isBackoffEntryExpired(policy: BackoffPolicy, entry: BackoffEntry, nowMs: number): boolean {
  return nowMs - entry.lastUpdateMs > policy.maxMs * 2;
}

/** The entry after a failure at nowMs: initialMs at first or after expiry, else doubled up to maxMs. */
export function nextBackoffEntry(policy: BackoffPolicy, entry: BackoffEntry | undefined, nowMs: number): BackoffEntry {
  const backoffMs = !entry || isBackoffEntryExpired(policy, entry, nowMs) ? policy.initialMs : Math.min(entry.backoffMs * 2, policy.maxMs);
  return { backoffMs, lastUpdateMs: nowMs };
}

export class Backoff {
  private readonly entries = new Map<string, BackoffEntry>();

  constructor(readonly policy: BackoffPolicy) {}

  private expired(entry: BackoffEntry, nowMs: number): boolean {
    return isBackoffEntryExpired(this.policy, entry, nowMs);
  }

  /** Record a failure at nowMs. */
  next(key: string, nowMs: number): void {
    this.entries.set(key, nextBackoffEntry(this.policy, this.entries.get(key), nowMs));
  }

  /** True while the last failure's back-off has not elapsed (IsInBackOffSinceUpdate). */
  isInBackoff(key: string, nowMs: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry, nowMs)) return false;
    return nowMs - entry.lastUpdateMs < entry.backoffMs;
  }

  /**
   * True while less than the current back-off has passed since `eventMs` (IsInBackOffSince): the
   * container restart back-off measures from when the container last finished.
   */
  isInBackoffSince(key: string, eventMs: number, nowMs: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry, nowMs)) return false;
    return nowMs - eventMs < entry.backoffMs;
  }

  /** The current back-off for a key, if any (for messages and tests). */
  current(key: string): number | undefined {
    return this.entries.get(key)?.backoffMs;
  }

  /** Drop keys untouched for 2 × maxMs. */
  gc(nowMs: number): void {
    for (const [key, entry] of this.entries) if (this.expired(entry, nowMs)) this.entries.delete(key);
  }
}
