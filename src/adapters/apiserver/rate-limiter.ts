/**
 * client-go's client-side rate limit (kubeAPIQPS / kubeAPIBurst, eventRecordQPS / eventBurst):
 * each request takes a token and waits on the injected clock until the bucket allows it.
 */
import type { Clock } from '../../ports/clock.js';
import { newTokenBucket, reserveToken, type TokenBucket } from '../../domain/node-status/token-bucket.js';

export interface RateLimiter {
  /** Resolves when this request may be sent. */
  wait(): Promise<void>;
}

export function tokenBucketLimiter(qps: number, burst: number, clock: Clock): RateLimiter {
  const bucket: TokenBucket = newTokenBucket(qps, burst, clock.now());
  return {
    wait() {
      const ms = reserveToken(bucket, clock.now());
      return ms === 0 ? Promise.resolve() : new Promise<void>((resolve) => void clock.setTimeout(() => resolve(), ms));
    },
  };
}

/** For the heartbeat client: Go gives it no rate limit. */
export const noRateLimit: RateLimiter = { wait: () => Promise.resolve() };
