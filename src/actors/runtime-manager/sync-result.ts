/**
 * What the runtime manager hands back to pod workers: plain JSON only (no class instances, errors
 * as SerializedError), so a result can travel in an XState event and be written to the journal.
 */
import { serializeError, type KubeletErrorCode, type SerializedError } from '../../domain/errors.js';
import type { PodActions } from '../../domain/runtime/compute-pod-actions.js';
import type { RuntimePodStatus } from '../../domain/runtime/pod-status.js';

/** Go's SyncAction, by step of SyncPod / KillPod. */
export type SyncStep =
  | 'computePodActions'
  | 'killPod'
  | 'killContainer'
  | 'killPodSandbox'
  | 'createPodSandbox'
  | 'configPodSandbox'
  | 'startInitContainer'
  | 'startContainer'
  | 'removeContainer'
  | 'removePodSandbox';

export interface SyncStepResult {
  step: SyncStep;
  /** The container name, the pod ("namespace/name") or the sandbox id the step acted on. */
  target: string;
  ok: boolean;
  error?: SerializedError;
  /** The Go kubelet's reason for the failure, as container statuses show it (ErrImagePull, CrashLoopBackOff…). */
  reason?: string;
  /** The container or sandbox id the step produced or acted on, when there is one. */
  id?: string;
  durationMs: number;
}

export interface SyncPodResult {
  podUid: string;
  /** True when every step succeeded. */
  ok: boolean;
  actions: PodActions;
  /** The sandbox the pod's containers run in after this sync, if any. */
  sandboxId?: string;
  steps: SyncStepResult[];
  /** The sync changed nothing: the status it planned from (see PodSyncOutcome.podStatus). */
  podStatus?: { runtimeStatus: RuntimePodStatus; observedAtMs: number };
}

export interface KillPodResult {
  podUid: string;
  ok: boolean;
  steps: SyncStepResult[];
}

/** The Go reason (kubecontainer.Err*, images.Err*) a failure is shown under. */
const reasonByCode: Partial<Record<KubeletErrorCode, string>> = {
  KLT_ERR_IMAGE_PULL: 'ErrImagePull',
  KLT_ERR_IMAGE_PULL_BACKOFF: 'ImagePullBackOff',
  KLT_ERR_IMAGE_NEVER_PULL: 'ErrImageNeverPull',
  KLT_ERR_IMAGE_INSPECT: 'ImageInspectError',
  KLT_ERR_IMAGE_NAME_INVALID: 'InvalidImageName',
  KLT_ERR_CONTAINER_CONFIG: 'CreateContainerConfigError',
  KLT_ERR_CONTAINER_BACKOFF: 'CrashLoopBackOff',
  KLT_ERR_CONTAINER_HOOK: 'PostStartHookError',
};

/** The failure as data, with the reason its code implies or the step's fallback reason. */
export function failure(err: unknown, fallbackReason: string): { error: SerializedError; reason: string } {
  const error = serializeError(err);
  return { error, reason: reasonByCode[error.code] ?? fallbackReason };
}
