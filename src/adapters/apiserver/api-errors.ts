/**
 * Foreign errors from the API server client → KubeletError, in one table (HTTP status → code),
 * plus the connection-level failures that never reached the server. `retryable` marks what a
 * caller may try again as is: outages, timeouts, throttling and server errors.
 */
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';

const BY_STATUS: Record<number, { code: KubeletErrorCode; retryable: boolean }> = {
  400: { code: 'KLT_ERR_API_INVALID', retryable: false },
  401: { code: 'KLT_ERR_API_UNAUTHORIZED', retryable: false },
  403: { code: 'KLT_ERR_API_FORBIDDEN', retryable: false },
  404: { code: 'KLT_ERR_API_NOT_FOUND', retryable: false },
  409: { code: 'KLT_ERR_API_CONFLICT', retryable: false },
  410: { code: 'KLT_ERR_API_GONE', retryable: false },
  422: { code: 'KLT_ERR_API_INVALID', retryable: false },
  429: { code: 'KLT_ERR_API_TOO_MANY_REQUESTS', retryable: true },
  500: { code: 'KLT_ERR_API_FAILED', retryable: true },
  502: { code: 'KLT_ERR_API_UNAVAILABLE', retryable: true },
  503: { code: 'KLT_ERR_API_UNAVAILABLE', retryable: true },
  504: { code: 'KLT_ERR_API_TIMEOUT', retryable: true },
};

/** errno codes (and undici's, and node:http2's for a session or stream cut) that mean the request never got an answer. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
  'ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_INVALID_SESSION', 'ERR_HTTP2_SESSION_ERROR', 'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_STREAM_CANCEL', 'ERR_HTTP2_PING_CANCEL', 'ERR_HTTP2_ERROR',
]);

interface StatusBody { reason?: string; message?: string }

function statusBody(body: unknown): StatusBody {
  if (typeof body === 'object' && body !== null) return body as StatusBody;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return { message: body };
    }
  }
  return {};
}

/** The errno-style code anywhere on the error's cause chain. */
function connectionCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
  }
  return undefined;
}

/** Map anything a client-node call threw. A 409 whose reason is AlreadyExists is ALREADY_EXISTS. */
export function toApiError(err: unknown, what: string): KubeletError {
  if (err instanceof KubeletError) return err;
  const status = (err as { code?: unknown }).code;
  if (typeof status === 'number') {
    const body = statusBody((err as { body?: unknown }).body);
    const reason = body.reason ?? '';
    const mapped = status === 409 && reason === 'AlreadyExists'
      ? { code: 'KLT_ERR_API_ALREADY_EXISTS' as const, retryable: false }
      : BY_STATUS[status] ?? { code: 'KLT_ERR_API_FAILED' as const, retryable: status >= 500 };
    return new KubeletError(mapped.code, `${what}: ${status}${reason ? ` ${reason}` : ''}: ${body.message ?? 'no message'}`, { cause: err, retryable: mapped.retryable });
  }
  const conn = connectionCode(err);
  const message = err instanceof Error ? err.message : String(err);
  if (conn !== undefined || /fetch failed|socket hang up|other side closed/i.test(message)) {
    return new KubeletError('KLT_ERR_API_UNAVAILABLE', `${what}: ${conn ?? message}`, { cause: err, retryable: true });
  }
  return new KubeletError('KLT_ERR_API_FAILED', `${what}: ${message}`, { cause: err, retryable: false });
}

/**
 * The message of the API server's Status answer behind an error toApiError made (`pod "x" not
 * found`), for callers that word their failure as Go does around client-go's error text; the
 * error's own message when no answer is behind it.
 */
export function apiStatusMessage(err: unknown): string {
  const cause = err instanceof Error ? (err as { cause?: unknown }).cause : undefined;
  const message = typeof cause === 'object' && cause !== null ? statusBody((cause as { body?: unknown }).body).message : undefined;
  if (typeof message === 'string' && message !== '') return message;
  return err instanceof Error ? err.message : String(err);
}
