/** A gRPC status as grpc-js's client reports it, for the CRI channels that are not grpc-js. */
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/** The code, the details, and `code NAME: details` as the message, as a grpc-js client's error has them. */
export function serviceError(code: GrpcStatus, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${GrpcStatus[code]}: ${details}`), { code, details, metadata: new Metadata() });
}
