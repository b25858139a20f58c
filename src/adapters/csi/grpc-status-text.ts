/** A failed gRPC call's status as Go prints a status error, for the messages Go's kubelet writes. */
import * as grpc from '@grpc/grpc-js';

/** `rpc error: code = NotFound desc = …`; an error without a gRPC code keeps its own message. */
export function grpcErrorText(error: unknown): string {
  const e = error as Partial<grpc.ServiceError> | undefined;
  if (typeof e?.code !== 'number') return error instanceof Error ? error.message : String(error);
  const name = (grpc.status[e.code] ?? String(e.code)).toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  return `rpc error: code = ${name} desc = ${e.details ?? e.message ?? ''}`;
}
