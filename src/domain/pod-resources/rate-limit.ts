/**
 * The pod resources API's rate limit (Go's pkg/kubelet/apis/podresources/grpc/ratelimit.go): one
 * token bucket for every call on the socket, as golang.org/x/time/rate's Limiter with Go's figures;
 * a call that finds no token is refused with ResourceExhausted before it is counted or served.
 */

/** Go's DefaultQPS: calls a second, over time. */
export const DEFAULT_QPS = 100;
/** Go's DefaultBurstTokens: calls at once, from a full bucket. */
export const DEFAULT_BURST_TOKENS = 10;
/** Go's ErrorLimitExceeded text (gRPC code ResourceExhausted). */
export const RATE_LIMIT_MESSAGE = 'rejected by rate limit';

export interface TokenBucket { tokens: number; atMs: number }

export function fullBucket(nowMs: number, burst: number = DEFAULT_BURST_TOKENS): TokenBucket {
  return { tokens: burst, atMs: nowMs };
}

/** Allow(): refill for the time gone by (never past `burst`), then take one token if there is one. */
export function takeToken(bucket: TokenBucket, nowMs: number, qps: number = DEFAULT_QPS, burst: number = DEFAULT_BURST_TOKENS): { allowed: boolean; bucket: TokenBucket } {
  const elapsedMs = Math.max(0, nowMs - bucket.atMs);
  const tokens = Math.min(burst, bucket.tokens + (elapsedMs * qps) / 1000);
  if (tokens < 1) return { allowed: false, bucket: { tokens, atMs: nowMs } };
  return { allowed: true, bucket: { tokens: tokens - 1, atMs: nowMs } };
}
