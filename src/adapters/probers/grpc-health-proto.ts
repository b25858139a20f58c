/**
 * Loads the gRPC health checking protocol (`proto/grpc/health/v1/health.proto`, grpc.health.v1)
 * once per process. The prober's client and the test suite's health servers both come here, so they
 * share loader options: enums as their names, and absent fields filled with defaults (proto3 leaves
 * a status of UNKNOWN, 0, off the wire). The types are generated from the same file (`npm run generate`,
 * with the CRI's options: their extra longs and oneofs settings change nothing here, where there are
 * no int64 or oneof fields).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import type { HealthDefinition } from '../../generated/grpc/health/v1/Health.js';
import type { HealthCheckRequest__Output } from '../../generated/grpc/health/v1/HealthCheckRequest.js';
import type {
  HealthCheckResponse, _grpc_health_v1_HealthCheckResponse_ServingStatus__Output,
} from '../../generated/grpc/health/v1/HealthCheckResponse.js';
import { findPackageProto } from '../proto-path.js';
import { serviceDefinition } from '../proto-service.js';

export const HEALTH_PROTO_RELATIVE_PATH = join('proto', 'grpc', 'health', 'v1', 'health.proto');

/** grpc.health.v1.HealthCheckResponse.ServingStatus, by name. */
export type ServingStatus = _grpc_health_v1_HealthCheckResponse_ServingStatus__Output;
/** A Check request as a server receives it. */
export type HealthCheckRequest = HealthCheckRequest__Output;
/** A Check answer as a server sends it. */
export type { HealthCheckResponse };

export interface HealthProto {
  /** grpc.health.v1.Health, for `server.addService` or a client's unary call. */
  readonly healthService: HealthDefinition;
}

let loaded: HealthProto | undefined;

export function loadHealthProto(): HealthProto {
  if (loaded) return loaded;
  const protoPath = findPackageProto(HEALTH_PROTO_RELATIVE_PATH, dirname(fileURLToPath(import.meta.url)));
  const definition = protoLoader.loadSync(protoPath, { keepCase: true, enums: String, defaults: true });
  loaded = { healthService: serviceDefinition<HealthDefinition>(definition, 'grpc.health.v1.Health') };
  return loaded;
}
