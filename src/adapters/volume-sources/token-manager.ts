/**
 * Service account tokens bound to pods (Go: pkg/kubelet/token/token_manager.go).
 * - Tokens are cached per (namespace, service account, audience, expirationSeconds, pod uid); the
 *   cached one is handed back until it requires a refresh (Go's requiresRefresh, without its
 *   jitter): past 80 % of its lifetime, past 24 h since it was issued, or issued "in the future"
 *   (the clock went back). The issue time is the expiration less the granted expirationSeconds.
 * - A refresh that fails while the old token is still valid answers the old token and logs the
 *   error; once it has expired, or with no token at all, the error is the answer.
 * - Concurrent asks for one key make one TokenRequest (Go makes one each).
 * - dropPod (Go's DeleteServiceAccountToken) forgets the pod's tokens, also one being requested;
 *   a cleanup every minute forgets expired ones.
 * `refreshAtMs` tells the caller when to ask again; after a failed refresh it is a few seconds
 * away (never past the old token's expiry), so a caller that follows it retries without spinning.
 * The token never reaches a log or an error message.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { TokenRequestAnswer, TokenRequestBody, VolumeApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { ServiceAccountToken, TokenRequestSpec } from '../../ports/volume-sources.js';

/** Go's maxTTL: a token older than this is refreshed whatever its expiry. */
export const TOKEN_MAX_TTL_MS = 24 * 60 * 60_000;
/** Go's gcPeriod. */
export const TOKEN_GC_PERIOD_MS = 60_000;
/** After a failed refresh, when the caller should ask again (at most the old token's expiry). */
export const TOKEN_RETRY_MS = 10_000;

export interface TokenManagerOptions {
  api: Pick<VolumeApi, 'createServiceAccountToken'>;
  clock: Clock;
  logger: Logger;
}

export interface TokenManager {
  get(spec: TokenRequestSpec): Promise<ServiceAccountToken>;
  /** Forgets every token bound to this pod. */
  dropPod(podUid: string): void;
  close(): void;
}

interface Cached {
  token: ServiceAccountToken;
  issuedAtMs: number;
  podUid: string;
}

interface InFlight { promise: Promise<ServiceAccountToken>; podUid: string; dropped: boolean }

/**
 * When a token issued at `issuedAtMs` and expiring at `expiresAtMs` requires a refresh: 24 h after
 * issue, or when 20 % of its lifetime is left (Go counts that 20 % in whole seconds).
 */
export function tokenRefreshAtMs(issuedAtMs: number, expiresAtMs: number, expirationSeconds: number): number {
  const lastFifth = Math.floor((expirationSeconds * 20) / 100) * 1000;
  return Math.min(issuedAtMs + TOKEN_MAX_TTL_MS, expiresAtMs - lastFifth);
}

export function createTokenManager(opts: TokenManagerOptions): TokenManager {
  const { api, clock } = opts;
  const logger = opts.logger.child({ component: 'tokenManager' });
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, InFlight>();

  const requiresRefresh = (c: Cached, now: number) => now >= c.token.refreshAtMs || now < c.issuedAtMs;
  const expired = (c: Cached, now: number) => now > c.token.expirationTimestampMs;

  function fromAnswer(answer: TokenRequestAnswer, spec: TokenRequestSpec): Cached {
    const expiresAtMs = Date.parse(answer.status.expirationTimestamp);
    if (Number.isNaN(expiresAtMs)) {
      throw new KubeletError('KLT_ERR_API_FAILED', `create token: the answer's expirationTimestamp ${JSON.stringify(answer.status.expirationTimestamp)} is not a time`);
    }
    const seconds = answer.spec.expirationSeconds ?? spec.expirationSeconds;
    const issuedAtMs = expiresAtMs - seconds * 1000;
    return {
      token: { token: answer.status.token, expirationTimestampMs: expiresAtMs, refreshAtMs: tokenRefreshAtMs(issuedAtMs, expiresAtMs, seconds) },
      issuedAtMs,
      podUid: spec.pod.uid,
    };
  }

  async function request(key: string, spec: TokenRequestSpec, flight: InFlight, old: Cached | undefined): Promise<ServiceAccountToken> {
    const body: TokenRequestBody = {
      ...(spec.audience === '' ? {} : { audiences: [spec.audience] }),
      expirationSeconds: spec.expirationSeconds,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: spec.pod.name, uid: spec.pod.uid },
    };
    let fresh: Cached;
    try {
      fresh = fromAnswer(await api.createServiceAccountToken(spec.namespace, spec.serviceAccountName, body), spec);
    } catch (err) {
      const now = clock.now();
      if (old === undefined || expired(old, now)) throw err;
      logger.error({ err, ...keyFields(spec) }, 'Couldn\'t update token');
      return { ...old.token, refreshAtMs: Math.min(now + TOKEN_RETRY_MS, old.token.expirationTimestampMs) };
    } finally {
      if (inFlight.get(key) === flight) inFlight.delete(key);
    }
    if (!flight.dropped) cache.set(key, fresh);
    return { ...fresh.token };
  }

  let gcTimer: unknown = clock.setTimeout(function cleanup() {
    const now = clock.now();
    for (const [key, c] of cache) if (expired(c, now)) cache.delete(key);
    gcTimer = clock.setTimeout(cleanup, TOKEN_GC_PERIOD_MS);
  }, TOKEN_GC_PERIOD_MS);

  return {
    get(spec) {
      const key = tokenKey(spec);
      const cached = cache.get(key);
      if (cached !== undefined && !requiresRefresh(cached, clock.now())) return Promise.resolve({ ...cached.token });
      const pending = inFlight.get(key);
      if (pending !== undefined) return pending.promise;
      // In the map before the request starts, so the request's own cleanup always finds it.
      const flight = { podUid: spec.pod.uid, dropped: false } as InFlight;
      inFlight.set(key, flight);
      flight.promise = request(key, spec, flight, cached);
      return flight.promise;
    },
    dropPod(podUid) {
      for (const [key, c] of cache) if (c.podUid === podUid) cache.delete(key);
      for (const [key, flight] of inFlight) {
        if (flight.podUid !== podUid) continue;
        flight.dropped = true;
        inFlight.delete(key);
      }
    },
    close() {
      clock.clearTimeout(gcTimer);
      cache.clear();
      inFlight.clear();
    },
  };
}

/** The cache key: nothing secret in it, so it may be logged (as Go's keyFunc). */
function tokenKey(spec: TokenRequestSpec): string {
  return JSON.stringify([spec.namespace, spec.serviceAccountName, spec.audience, spec.expirationSeconds, spec.pod.uid]);
}

function keyFields(spec: TokenRequestSpec) {
  return { namespace: spec.namespace, serviceAccount: spec.serviceAccountName, audience: spec.audience, expirationSeconds: spec.expirationSeconds, podUid: spec.pod.uid };
}
