/**
 * gRPC's status codes (its published list, doc/statuscodes.md) and the failure a unary call ends
 * with, of our own: the CRI client speaks gRPC without grpc-js, and loading grpc-js for a table of
 * seventeen numbers would put the whole library in every daemon's memory. The numbers and names are
 * those of every gRPC implementation, so statuses pass unchanged between this code and grpc-js where
 * grpc-js is still used (the embedded runtime's server, the gRPC prober).
 */

export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatus = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/** Each code's name, by its number. */
const NAMES: ReadonlyMap<number, string> = new Map(Object.entries(GrpcStatus).map(([name, code]) => [code, name]));

export function grpcStatusName(code: number): string {
  return NAMES.get(code) ?? 'UNKNOWN';
}

export function isGrpcStatus(code: number): code is GrpcStatus {
  return NAMES.has(code);
}

/**
 * A failed call, as grpc-js's ServiceError has it less the answer's metadata, which nothing reads
 * of a CRI runtime: the status code and its details, `code NAME: details` as the message.
 */
export interface ServiceError extends Error {
  code: GrpcStatus;
  details: string;
}
