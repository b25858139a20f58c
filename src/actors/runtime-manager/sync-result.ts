/**
 * A failed step of SyncPod / KillPod as data: the result types live with the RuntimeManager port
 * (src/ports/runtime-manager.ts); this maps an error to the Go reason the step is shown under.
 */
import { serializeError, type KubeletErrorCode, type SerializedError } from '../../domain/errors.js';

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
