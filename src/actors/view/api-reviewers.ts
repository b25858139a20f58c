/**
 * The kubelet server's Webhook authentication and authorization, answered by the API server
 * (TokenReview, SubjectAccessReview) and cached as the Go kubelet caches them: token reviews for
 * authentication.webhook.cacheTTL (2 m), access reviews for cacheAuthorizedTTL (5 m) when allowed
 * and cacheUnauthorizedTTL (30 s) when denied. A review that fails is not cached.
 */
import type { Clock } from '../../ports/clock.js';
import type { ReviewApi } from '../../ports/apiserver.js';
import type { AccessReviewResult, NodeRequestAttributes, SubjectAccessReviewer, TokenReviewer, TokenReviewResult } from '../../ports/kubelet-view.js';

export interface ReviewCacheTtls {
  tokenMs: number;
  authorizedMs: number;
  unauthorizedMs: number;
}

class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  constructor(private readonly clock: Pick<Clock, 'now'>, private readonly max = 1024) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: this.clock.now() + ttlMs });
  }
}

export function createApiReviewers(api: ReviewApi, clock: Pick<Clock, 'now'>, ttls: ReviewCacheTtls): { tokenReviewer: TokenReviewer; accessReviewer: SubjectAccessReviewer } {
  const tokens = new TtlCache<TokenReviewResult>(clock);
  const access = new TtlCache<AccessReviewResult>(clock);
  return {
    tokenReviewer: {
      async review(token) {
        const cached = tokens.get(token);
        if (cached) return cached;
        try {
          const r = await api.reviewToken(token);
          const result: TokenReviewResult = r.authenticated && r.user
            ? { authenticated: true, user: { name: r.user.username, ...(r.user.uid ? { uid: r.user.uid } : {}), groups: r.user.groups ?? [] } }
            : { authenticated: false, ...(r.error ? { error: r.error } : {}) };
          tokens.set(token, result, ttls.tokenMs);
          return result;
        } catch (err) {
          return { authenticated: false, error: err instanceof Error ? err.message : String(err) };
        }
      },
    },
    accessReviewer: {
      async review(attrs: NodeRequestAttributes) {
        const key = JSON.stringify([attrs.user.name, attrs.user.groups, attrs.verb, attrs.subresource, attrs.name]);
        const cached = access.get(key);
        if (cached) return cached;
        // Throws when the review itself fails: the server answers 500, as Go does.
        const r = await api.reviewAccess({
          user: attrs.user.name,
          ...(attrs.user.uid ? { uid: attrs.user.uid } : {}),
          groups: attrs.user.groups,
          resourceAttributes: { verb: attrs.verb, group: attrs.apiGroup, version: attrs.apiVersion, resource: attrs.resource, subresource: attrs.subresource, name: attrs.name, namespace: attrs.namespace },
        });
        const result: AccessReviewResult = { allowed: r.allowed, ...(r.reason ? { reason: r.reason } : {}) };
        access.set(key, result, r.allowed ? ttls.authorizedMs : ttls.unauthorizedMs);
        return result;
      },
    },
  };
}
