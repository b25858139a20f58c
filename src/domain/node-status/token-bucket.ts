/**
 * client-go's client-side rate limiter (flowcontrol.NewTokenBucketRateLimiter): a bucket of
 * `burst` tokens, refilled at `qps` per second, starting full. Pure: time is passed in, so the
 * adapter that waits on it uses the injected clock and tests need no timers.
 */
export interface TokenBucketState {
  tokens: number;
  lastMs: number;
}

export interface TokenBucket {
  readonly qps: number;
  readonly burst: number;
  state: TokenBucketState;
}

export function newTokenBucket(qps: number, burst: number, nowMs: number): TokenBucket {
  if (!(qps > 0) || !(burst >= 1)) throw new RangeError(`token bucket needs qps > 0 and burst >= 1 (got ${qps}, ${burst})`);
  return { qps, burst, state: { tokens: burst, lastMs: nowMs } };
}

function refill(bucket: TokenBucket, nowMs: number): number {
  const elapsed = Math.max(0, nowMs - bucket.state.lastMs);
  return Math.min(bucket.burst, bucket.state.tokens + (elapsed * bucket.qps) / 1000);
}

/**
 * Take one token, reserving it even when the bucket is empty (client-go's Wait reserves too, so
 * waiters are served in order). Returns how long the caller must wait before sending, in ms.
 */
export function reserveToken(bucket: TokenBucket, nowMs: number): number {
  const tokens = refill(bucket, nowMs) - 1;
  bucket.state = { tokens, lastMs: Math.max(nowMs, bucket.state.lastMs) };
  return tokens >= 0 ? 0 : Math.ceil((-tokens * 1000) / bucket.qps);
}
