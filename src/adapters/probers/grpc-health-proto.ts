/**
 * The gRPC health checking protocol (`proto/grpc/health/v1/health.proto`, grpc.health.v1), built
 * once per process from its descriptor (`npm run generate`, ../proto-service.ts). The prober's
 * client and the test suite's health servers both come here, so they share the conversion: enums as
 * their names, and absent fields filled with defaults (proto3 leaves a status of UNKNOWN, 0, off
 * the wire). The types are generated from the same file (`npm run generate`, with the CRI's options:
 * their extra longs and oneofs settings change nothing here, where there are no int64 or oneof fields).
 */
import protobuf from 'protobufjs/light.js';
import { HEALTH_DESCRIPTOR } from '../../generated/health-descriptor.js';
import type { HealthDefinition } from '../../generated/grpc/health/v1/Health.js';
import type { HealthCheckRequest__Output } from '../../generated/grpc/health/v1/HealthCheckRequest.js';
import type {
  HealthCheckResponse, _grpc_health_v1_HealthCheckResponse_ServingStatus__Output,
} from '../../generated/grpc/health/v1/HealthCheckResponse.js';
import { serviceCodecs, type ServiceCodecs } from '../proto-service.js';

/** How a decoded health message looks (see the module's comment). */
export const HEALTH_CONVERSION_OPTIONS = { enums: String, defaults: true } as const satisfies protobuf.IConversionOptions;

/** grpc.health.v1.HealthCheckResponse.ServingStatus, by name. */
export type ServingStatus = _grpc_health_v1_HealthCheckResponse_ServingStatus__Output;
/** A Check request as a server receives it. */
export type HealthCheckRequest = HealthCheckRequest__Output;
/** A Check answer as a server sends it. */
export type { HealthCheckResponse };

export interface HealthProto {
  /** grpc.health.v1.Health, for `server.addService` or a client's unary call. */
  readonly healthService: ServiceCodecs<HealthDefinition>;
}

let loaded: HealthProto | undefined;

export function loadHealthProto(): HealthProto {
  if (loaded) return loaded;
  const root = protobuf.Root.fromJSON(HEALTH_DESCRIPTOR);
  loaded = { healthService: serviceCodecs<HealthDefinition>(root, 'grpc.health.v1.Health', HEALTH_CONVERSION_OPTIONS) };
  return loaded;
}
