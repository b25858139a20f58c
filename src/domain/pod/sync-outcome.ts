/**
 * What a pod worker keeps of a runtime sync: the shape of the runtime manager's SyncPodResult that
 * machines and status generation read, declared here so they need not import the actors layer
 * (SyncPodResult is assignable to PodSyncOutcome; a test pins that).
 *
 * The reason cache is Go's ReasonCache (pkg/kubelet/reason_cache.go): the last start failure per
 * container (CrashLoopBackOff, ErrImagePull…), added when a start fails and dropped when one
 * succeeds; status generation shows it as the container's waiting reason.
 */
import type { SerializedError } from '../errors.js';
import type { RuntimePodStatus } from '../runtime/pod-status.js';

export interface SyncStepOutcome {
  step: string;
  /** Container name for start steps. */
  target: string;
  ok: boolean;
  reason?: string;
  error?: SerializedError;
  /** For a failure caused by a back-off (CrashLoopBackOff): when it expires, on the runtime manager's clock. */
  retryAtMs?: number;
  /** A pull of the container's image that failed (not one refused for its back-off): the image, and when, on the runtime manager's clock. */
  pullFailure?: { image: string; atMs: number };
}

export interface PodSyncOutcome {
  podUid: string;
  ok: boolean;
  steps: readonly SyncStepOutcome[];
  /**
   * The pod's status after the sync, and when it was read: the runtime's view it planned from when
   * it found nothing to do, else one read when it ended. The worker takes it as the pod's current
   * status instead of reading it again (Go's workers read no runtime at all: they take the PLEG's
   * cache). Absent when that read failed: the worker then reads the status itself.
   */
  podStatus?: { runtimeStatus: RuntimePodStatus; observedAtMs: number };
  /**
   * Present when the kubelet's soft admission refused the pod (Go's canRunPod: AppArmor asked of a
   * host without it): its containers were stopped and none started; the status says why.
   */
  blocked?: { reason: string; message: string };
  /** The sync resized containers in place, or failed to; absent when it had nothing to resize. */
  resize?: { status: 'applied' } | { status: 'failed'; message: string };
  /** After the sync a running container still runs with other amounts than the pod gives it. */
  resizeInProgress?: true;
}

export interface ContainerStartFailure {
  reason: string;
  message: string;
}

/** Container name → its last start failure. */
export type ReasonCache = Readonly<Record<string, ContainerStartFailure>>;

const startSteps = new Set(['startContainer', 'startInitContainer']);

/** ReasonCache.Update: start failures are remembered, a successful start forgets its container. */
export function updateReasonCache(cache: ReasonCache, outcome: PodSyncOutcome): ReasonCache {
  const next: Record<string, ContainerStartFailure> = { ...cache };
  for (const step of outcome.steps) {
    if (!startSteps.has(step.step)) continue;
    if (step.ok) delete next[step.target];
    else next[step.target] = { reason: step.reason ?? 'Error', message: step.error?.message ?? '' };
  }
  return next;
}
