/**
 * gRPC servers for the gRPC prober's tests, on 127.0.0.1 and a free port, with the prober's own
 * grpc.health.v1 definition. `healthService` answers as the health checking protocol asks: a
 * registered service its status (changeable while the server runs), any other NOT_FOUND.
 */
import * as grpc from '@grpc/grpc-js';
import {
  loadHealthProto, type HealthCheckRequest, type HealthCheckResponse, type ServingStatus,
} from '../../src/adapters/probers/grpc-health-proto.js';

export type CheckHandler = grpc.handleUnaryCall<HealthCheckRequest, HealthCheckResponse>;

/** What a Check call carried. */
export interface SeenCheck { service: string; userAgent: string }

export interface TestGrpcServer {
  port: number;
  stop(): void;
}

/**
 * `'omitted'` answers an empty message (proto3 leaves UNKNOWN, 0, off the wire); a number answers
 * that enum value, as a server with a newer proto could.
 */
export type StatusAnswer = ServingStatus | 'omitted' | number;

/** A server with the Health service's Check handled by `check`, or with no service at all. */
export async function startGrpcServer(check: CheckHandler | undefined): Promise<TestGrpcServer> {
  const server = new grpc.Server();
  if (check) server.addService(loadHealthProto().healthService, { Check: check });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  return { port, stop: () => server.forceShutdown() };
}

/** Check in the protocol's manner, from `statuses` as they are when each call arrives. */
export function healthService(statuses: Map<string, StatusAnswer>, seen: SeenCheck[] = []): CheckHandler {
  return (call, callback) => {
    seen.push({ service: call.request.service, userAgent: String(call.metadata.get('user-agent')[0]) });
    const status = statuses.get(call.request.service);
    if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
    else callback(null, status === 'omitted' ? ({} as HealthCheckResponse) : ({ status } as HealthCheckResponse));
  };
}
