/**
 * What the kubelet server reads from the rest of the kubelet: one narrow view, implemented by the
 * composition root over the syncLoop, PLEG, runtime and config state. Every read may answer
 * synchronously or with a promise; the server awaits each one per request and holds nothing.
 *
 * Also here: the two auth ports the server delegates to the API server when there is one
 * (TokenReview for bearer tokens, SubjectAccessReview for the Webhook authorizer, issue 6).
 */
import type { Pod } from '../domain/pod/types.js';
import type { Durations, KubeletMetricsSnapshot } from '../domain/http/kubelet-metrics.js';
import type { HistogramCounts } from '../domain/http/histogram-counts.js';
import type { NodeRequestAttributes, UserInfo } from '../domain/http/request-attributes.js';

export type { Durations, HistogramCounts, KubeletMetricsSnapshot, NodeRequestAttributes, UserInfo };

type MaybePromise<T> = T | Promise<T>;

export interface KubeletView {
  /**
   * Every pod the kubelet is asked to run, spec and latest status (apiVersion/kind optional). The
   * same array while nothing changed, a new one when anything did (never changed in place): the
   * server renders a PodList once per array, not once per request.
   */
  pods(): MaybePromise<readonly Pod[]>;
  /** The /configz body, secrets already masked: `configzBody(cfg)` from domain/config/configz. */
  configz(): MaybePromise<{ kubeletconfig: unknown }>;
  /** The metrics; the same object may be answered for a while (the server renders it once). */
  metrics(): MaybePromise<KubeletMetricsSnapshot>;
  /**
   * The CRI log file of the container's current instance, or of the one before it when `previous`;
   * null when there is none (container never started, or no previous instance).
   */
  containerLogPath(namespace: string, pod: string, container: string, previous: boolean): MaybePromise<string | null>;
  /** Whether the container's current instance is running: `follow` stops once it is not. */
  containerRunning(namespace: string, pod: string, container: string): MaybePromise<boolean>;
}

export interface TokenReviewResult {
  authenticated: boolean;
  user?: UserInfo;
  /** Set when the review itself failed (API server unreachable…). */
  error?: string;
}

/** authentication.webhook: a TokenReview against the API server. */
export interface TokenReviewer {
  review(token: string): Promise<TokenReviewResult>;
}

export interface AccessReviewResult {
  allowed: boolean;
  reason?: string;
}

/** authorization.mode Webhook: a SubjectAccessReview against the API server. Rejects on failure. */
export interface SubjectAccessReviewer {
  review(attributes: NodeRequestAttributes): Promise<AccessReviewResult>;
}
