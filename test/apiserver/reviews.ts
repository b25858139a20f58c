/**
 * TokenReview and SubjectAccessReview, answered from what the test configures: a table of tokens
 * and a function over the SubjectAccessReview spec. Reviews are not stored, as in Go.
 */
import type { KubeObject } from './resources.js';

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface SubjectAccessReviewSpec {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  resourceAttributes?: {
    namespace?: string; verb?: string; group?: string; version?: string; resource?: string; subresource?: string; name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export type Authorize = (spec: SubjectAccessReviewSpec) => SubjectAccessReviewStatus;

export interface Reviews {
  /** Bearer tokens a TokenReview accepts, and who they are. */
  tokens: Map<string, UserInfo>;
  /** Answers every SubjectAccessReview; the default denies with no opinion (allowed: false). */
  authorize: Authorize;
}

export function createReviews(): Reviews {
  return { tokens: new Map(), authorize: () => ({ allowed: false, reason: 'no authorizer configured in the test API server' }) };
}

export function answerTokenReview(reviews: Reviews, body: KubeObject): KubeObject {
  const spec = (body.spec ?? {}) as { token?: string; audiences?: string[] };
  const user = spec.token === undefined ? undefined : reviews.tokens.get(spec.token);
  // Go omits `authenticated: false` (omitempty) and answers an empty user.
  const status = user === undefined
    ? { user: {} }
    : { authenticated: true, user, audiences: spec.audiences ?? [] };
  return { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: {}, spec, status };
}

export function answerSubjectAccessReview(reviews: Reviews, body: KubeObject): KubeObject {
  const spec = (body.spec ?? {}) as SubjectAccessReviewSpec;
  const status = reviews.authorize(spec);
  return { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: {}, spec, status };
}
