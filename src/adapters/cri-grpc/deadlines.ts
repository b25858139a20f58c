/**
 * How long each CRI call may take. The Go kubelet gives every call --runtime-request-timeout (2m),
 * StopContainer that plus its grace period, ExecSync that plus its timeout, and PullImage no
 * deadline at all. kubelet-ts differs on purpose in two places:
 * - reads (Version, Status, List*, *Status, ImageFsInfo, RuntimeConfig) get a short deadline, so a
 *   wedged runtime turns the node NotReady in seconds instead of minutes;
 * - PullImage gets a long but finite deadline (default 10 min), because every call has one.
 */
export interface CriDeadlines {
  /** --runtime-request-timeout: mutating calls. */
  readonly runtimeRequestTimeoutMs: number;
  /** Reads and status calls. */
  readonly readTimeoutMs: number;
  readonly imagePullTimeoutMs: number;
}

export const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_READ_TIMEOUT_MS = 5_000;
export const DEFAULT_IMAGE_PULL_TIMEOUT_MS = 600_000;

export type CallKind = 'read' | 'mutate' | 'pull';

export function deadlineMs(deadlines: CriDeadlines, kind: CallKind): number {
  switch (kind) {
    case 'read': return deadlines.readTimeoutMs;
    case 'mutate': return deadlines.runtimeRequestTimeoutMs;
    case 'pull': return deadlines.imagePullTimeoutMs;
  }
}

/** StopContainer: the runtime waits up to the grace period before SIGKILL, so the call must outlive it. */
export function stopContainerDeadlineMs(deadlines: CriDeadlines, graceSeconds: number): number {
  return deadlines.runtimeRequestTimeoutMs + Math.max(0, graceSeconds) * 1000;
}

/** ExecSync: the command's own timeout plus room for the runtime to clean up (0 = no command timeout). */
export function execSyncDeadlineMs(deadlines: CriDeadlines, timeoutSeconds: number): number {
  return deadlines.runtimeRequestTimeoutMs + Math.max(0, timeoutSeconds) * 1000;
}
