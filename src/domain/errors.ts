/**
 * One error class for expected failures, each with a stable code (tests assert codes, never text),
 * and one for invariant violations. Adapters map foreign errors (gRPC status, errno, HTTP status) to
 * these codes in one table each; an error crossing into a machine becomes plain data (SerializedError)
 * so the journal stays JSON.
 */
/** Every code, so a serialized error read back (from the journal, a replay) can be checked. */
export const KUBELET_ERROR_CODES = [
  'KLT_ERR_FLAG_UNKNOWN',
  'KLT_ERR_FLAG_INVALID',
  'KLT_ERR_CONFIG_READ',
  'KLT_ERR_CONFIG_PARSE',
  'KLT_ERR_CONFIG_INVALID',
  'KLT_ERR_LOCK_CONTENDED',
  'KLT_ERR_LOCK_IO',
  'KLT_ERR_NODE_IP_INVALID',
  'KLT_ERR_HOST_IO',
  'KLT_ERR_TLS_CONFIG',
  'KLT_ERR_AUTH_CONFIG',
  'KLT_ERR_PHASE_TIMEOUT',
  'KLT_ERR_CRI_ENDPOINT_INVALID',
  'KLT_ERR_CRI_UNAVAILABLE',
  'KLT_ERR_CRI_NOT_FOUND',
  'KLT_ERR_CRI_ALREADY_EXISTS',
  'KLT_ERR_CRI_INVALID_ARGUMENT',
  'KLT_ERR_CRI_DEADLINE',
  'KLT_ERR_CRI_UNIMPLEMENTED',
  'KLT_ERR_CRI_RESOURCE_EXHAUSTED',
  'KLT_ERR_CRI_FAILED',
  'KLT_ERR_IMAGE_PULL',
  'KLT_ERR_IMAGE_NEVER_PULL',
  'KLT_ERR_IMAGE_PULL_BACKOFF',
  'KLT_ERR_IMAGE_INSPECT',
  'KLT_ERR_IMAGE_NAME_INVALID',
  'KLT_ERR_POD_SPEC_INVALID',
  'KLT_ERR_POD_NOT_RUNNABLE',
  'KLT_ERR_CONTAINER_CONFIG',
  'KLT_ERR_CONTAINER_BACKOFF',
  'KLT_ERR_CONTAINER_HOOK',
  'KLT_ERR_RESIZE_IN_PLACE',
  'KLT_ERR_API_CONFIG',
  'KLT_ERR_API_UNAUTHORIZED',
  'KLT_ERR_API_FORBIDDEN',
  'KLT_ERR_API_NOT_FOUND',
  'KLT_ERR_API_ALREADY_EXISTS',
  'KLT_ERR_API_CONFLICT',
  'KLT_ERR_API_GONE',
  'KLT_ERR_API_INVALID',
  'KLT_ERR_API_TOO_MANY_REQUESTS',
  'KLT_ERR_API_TIMEOUT',
  'KLT_ERR_API_UNAVAILABLE',
  'KLT_ERR_API_FAILED',
  'KLT_ERR_BOOTSTRAP',
  'KLT_ERR_JOURNAL_FORMAT',
  'KLT_ERR_JOURNAL_IO',
  'KLT_ERR_REPLAY_DIVERGED',
  'KLT_ERR_STATS_UNAVAILABLE',
  'KLT_ERR_STATS_BUSY',
  'KLT_ERR_VOLUME_SOURCE',
  'KLT_ERR_VOLUME_MOUNT',
  'KLT_ERR_VOLUME_PROCESS',
  'KLT_ERR_VOLUME_OPERATION',
  'KLT_ERR_CGROUP',
  'KLT_ERR_DBUS_UNAVAILABLE',
  'KLT_ERR_DBUS_CALL',
  'KLT_ERR_PATH_UNSAFE',
  'KLT_ERR_PLUGIN_REGISTRATION',
  'KLT_ERR_DEVICE_PLUGIN',
  'KLT_ERR_DRA_PLUGIN',
  'KLT_ERR_DRA_CLAIM',
  'KLT_ERR_INTERNAL',
] as const;

export type KubeletErrorCode = (typeof KUBELET_ERROR_CODES)[number];

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

const knownCodes: ReadonlySet<string> = new Set(KUBELET_ERROR_CODES);

export function isKubeletErrorCode(code: unknown): code is KubeletErrorCode {
  return typeof code === 'string' && knownCodes.has(code);
}

/**
 * Any thrown value as journal-safe data: the one serialized form of an error (journal, machine
 * contexts, the supervisor's failure, logs). Unknown errors keep their message under
 * KLT_ERR_INTERNAL. An error that is already in the serialized form (it crossed the journal once,
 * e.g. fed back by a replay) is kept as it is, so serializing is idempotent. A foreign object that
 * merely has a `code` (an errno error's `ENOENT`) is foreign: its code is not one of ours.
 */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof KubeletError) return err.toJSON();
  if (isSerializedError(err)) return { code: err.code, message: err.message, retryable: err.retryable === true };
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'KLT_ERR_INTERNAL', message, retryable: false };
}

/** The serialized form read back: a known code and a message (`retryable` absent reads as false). */
function isSerializedError(value: unknown): value is Omit<SerializedError, 'retryable'> & { retryable?: unknown } {
  if (typeof value !== 'object' || value === null || value instanceof Error) return false;
  const v = value as { code?: unknown; message?: unknown };
  return isKubeletErrorCode(v.code) && typeof v.message === 'string';
}

/**
 * The serialized form back as the error it was: a KubeletError with the same code, message and
 * retryability (`serializeError(deserializeError(s))` equals `s`). Anything else that is not the
 * serialized form becomes what serializeError would have made of it.
 */
export function deserializeError(value: unknown): KubeletError {
  const s = serializeError(value);
  return new KubeletError(s.code, s.message, { retryable: s.retryable });
}
