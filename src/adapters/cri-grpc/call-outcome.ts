/**
 * grpc-js's contract for a unary call's outcome, kept by the CRI channels that are not grpc-js (the
 * embedded runtime's in-process channel, the bare HTTP/2 client of the relist): failures are
 * ServiceErrors shaped as grpc-js makes them, the callback runs once and never synchronously, and a
 * call not answered by its deadline ends DEADLINE_EXCEEDED, whatever comes after it being dropped.
 */
import { GrpcStatus, grpcStatusName, type ServiceError } from './grpc-status.js';
import type { UnaryCallback } from './unary-call.js';

/** The code, the details, and `code NAME: details` as the message, as a grpc-js client's error has them. */
export function serviceError(code: GrpcStatus, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${grpcStatusName(code)}: ${details}`), { code, details });
}

/** Fails a call before it went anywhere: asynchronously, as grpc-js does. */
export function refuseCall<Res>(callback: UnaryCallback<Res>, code: GrpcStatus, details: string): void {
  queueMicrotask(() => callback(serviceError(code, details)));
}

/**
 * The call's one way to end: the returned function settles it, once; the deadline, if it comes
 * first, settles it DEADLINE_EXCEEDED and then runs `onExpired` (to cancel what is in flight).
 * `holdsProcess`: whether the deadline's timer keeps the process alive meanwhile (the in-process
 * channel's does not: the runtime answering is in the process anyway).
 */
export function settledOnce<Res>(
  deadline: number, callback: UnaryCallback<Res>, { holdsProcess, onExpired }: { holdsProcess: boolean; onExpired?: () => void },
): UnaryCallback<Res> {
  let settled = false;
  const finish: UnaryCallback<Res> = (err, response) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    callback(err, response);
  };
  const timer = setTimeout(() => {
    finish(serviceError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'));
    onExpired?.();
  }, Math.max(0, deadline - Date.now()));
  if (!holdsProcess) timer.unref();
  return finish;
}
