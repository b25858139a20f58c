/**
 * gRPC status → KubeletError, in one table (fastify's AVVIO_ERRORS_MAP pattern). The runtime's own
 * message (the status details) is kept, prefixed by the RPC that failed.
 */
import { GrpcStatus, type ServiceError } from './grpc-status.js';
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';

interface Mapping { code: KubeletErrorCode; retryable: boolean }

/** Status codes not listed here become KLT_ERR_CRI_FAILED (not retryable). */
export const GRPC_STATUS_TO_KUBELET_ERROR: ReadonlyMap<GrpcStatus, Mapping> = new Map<GrpcStatus, Mapping>([
  // The socket is gone or the runtime is restarting: the next attempt may well work.
  [GrpcStatus.UNAVAILABLE, { code: 'KLT_ERR_CRI_UNAVAILABLE', retryable: true }],
  [GrpcStatus.NOT_FOUND, { code: 'KLT_ERR_CRI_NOT_FOUND', retryable: false }],
  [GrpcStatus.ALREADY_EXISTS, { code: 'KLT_ERR_CRI_ALREADY_EXISTS', retryable: false }],
  [GrpcStatus.INVALID_ARGUMENT, { code: 'KLT_ERR_CRI_INVALID_ARGUMENT', retryable: false }],
  // Our deadline (or ExecSync's own timeout, which containerd reports the same way).
  [GrpcStatus.DEADLINE_EXCEEDED, { code: 'KLT_ERR_CRI_DEADLINE', retryable: true }],
  // An RPC newer than the runtime (e.g. RuntimeConfig on containerd 1.6): callers fall back.
  [GrpcStatus.UNIMPLEMENTED, { code: 'KLT_ERR_CRI_UNIMPLEMENTED', retryable: false }],
]);

const FALLBACK: Mapping = { code: 'KLT_ERR_CRI_FAILED', retryable: false };

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number';
}

/** Translates whatever a call rejected with into a KubeletError carrying the original as cause. */
export function toKubeletError(err: unknown, rpc: string): KubeletError {
  if (err instanceof KubeletError) return err;
  if (!isServiceError(err)) {
    const message = err instanceof Error ? err.message : String(err);
    return new KubeletError('KLT_ERR_CRI_FAILED', `${rpc}: ${message}`, { cause: err });
  }
  const mapping = GRPC_STATUS_TO_KUBELET_ERROR.get(err.code) ?? FALLBACK;
  const details = err.details || err.message;
  return new KubeletError(mapping.code, `${rpc}: ${details}`, { cause: err, retryable: mapping.retryable });
}
