/**
 * One error class for expected failures, each with a stable code (tests assert codes, never text),
 * and one for invariant violations. Adapters map foreign errors (gRPC status, errno, HTTP status) to
 * these codes in one table each; an error crossing into a machine becomes plain data (SerializedError)
 * so the journal stays JSON.
 */
export type KubeletErrorCode =
  | 'KLT_ERR_FLAG_UNKNOWN'
  | 'KLT_ERR_FLAG_INVALID'
  | 'KLT_ERR_CONFIG_READ'
  | 'KLT_ERR_CONFIG_PARSE'
  | 'KLT_ERR_CONFIG_INVALID'
  | 'KLT_ERR_LOCK_CONTENDED'
  | 'KLT_ERR_LOCK_IO'
  | 'KLT_ERR_NODE_IP_INVALID'
  | 'KLT_ERR_HOST_IO'
  | 'KLT_ERR_TLS_CONFIG'
  | 'KLT_ERR_AUTH_CONFIG'
  | 'KLT_ERR_PHASE_TIMEOUT'
  | 'KLT_ERR_CRI_ENDPOINT_INVALID'
  | 'KLT_ERR_CRI_UNAVAILABLE'
  | 'KLT_ERR_CRI_NOT_FOUND'
  | 'KLT_ERR_CRI_ALREADY_EXISTS'
  | 'KLT_ERR_CRI_INVALID_ARGUMENT'
  | 'KLT_ERR_CRI_DEADLINE'
  | 'KLT_ERR_CRI_UNIMPLEMENTED'
  | 'KLT_ERR_CRI_FAILED'
  | 'KLT_ERR_IMAGE_PULL'
  | 'KLT_ERR_IMAGE_NEVER_PULL'
  | 'KLT_ERR_IMAGE_PULL_BACKOFF'
  | 'KLT_ERR_IMAGE_INSPECT'
  | 'KLT_ERR_IMAGE_NAME_INVALID'
  | 'KLT_ERR_POD_SPEC_INVALID'
  | 'KLT_ERR_CONTAINER_CONFIG'
  | 'KLT_ERR_CONTAINER_BACKOFF'
  | 'KLT_ERR_CONTAINER_HOOK'
  | 'KLT_ERR_API_CONFIG'
  | 'KLT_ERR_API_UNAUTHORIZED'
  | 'KLT_ERR_API_FORBIDDEN'
  | 'KLT_ERR_API_NOT_FOUND'
  | 'KLT_ERR_API_ALREADY_EXISTS'
  | 'KLT_ERR_API_CONFLICT'
  | 'KLT_ERR_API_GONE'
  | 'KLT_ERR_API_INVALID'
  | 'KLT_ERR_API_TOO_MANY_REQUESTS'
  | 'KLT_ERR_API_TIMEOUT'
  | 'KLT_ERR_API_UNAVAILABLE'
  | 'KLT_ERR_API_FAILED'
  | 'KLT_ERR_JOURNAL_FORMAT'
  | 'KLT_ERR_JOURNAL_IO'
  | 'KLT_ERR_REPLAY_DIVERGED'
  | 'KLT_ERR_STATS_UNAVAILABLE'
  | 'KLT_ERR_STATS_BUSY'
  | 'KLT_ERR_INTERNAL';

export interface SerializedError {
  code: KubeletErrorCode;
  message: string;
  retryable: boolean;
}

export class KubeletError extends Error {
  override readonly name = 'KubeletError';
  readonly retryable: boolean;

  constructor(
    readonly code: KubeletErrorCode,
    message: string,
    opts: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.retryable = opts.retryable ?? false;
  }

  toJSON(): SerializedError {
    return { code: this.code, message: this.message, retryable: this.retryable };
  }
}

/** An invariant was violated: a bug in kubelet-ts, never an expected condition. */
export class KubeletBug extends Error {
  override readonly name = 'KubeletBug';
}

/** Any thrown value as journal-safe data. Unknown errors keep their message under KLT_ERR_INTERNAL. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof KubeletError) return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'KLT_ERR_INTERNAL', message, retryable: false };
}
