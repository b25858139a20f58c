/**
 * Loads the gRPC health checking protocol (`proto/grpc/health/v1/health.proto`, grpc.health.v1)
 * once per process. The prober's client and the test suite's health servers both come here, so they
 * share loader options: enums as their names, and absent fields filled with defaults (proto3 leaves
 * a status of UNKNOWN, 0, off the wire).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { findPackageProto } from '../proto-path.js';

export const HEALTH_PROTO_RELATIVE_PATH = join('proto', 'grpc', 'health', 'v1', 'health.proto');

/** grpc.health.v1.HealthCheckResponse.ServingStatus, by name. */
export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthCheckRequest { service: string }
export interface HealthCheckResponse { status: ServingStatus }

export interface HealthProto {
  /** grpc.health.v1.Health, for `server.addService`. */
  readonly healthService: grpc.ServiceDefinition;
  /** The client constructor grpc-js generates for it. */
  readonly HealthClient: grpc.ServiceClientConstructor;
}

let loaded: HealthProto | undefined;

export function loadHealthProto(): HealthProto {
  if (loaded) return loaded;
  const protoPath = findPackageProto(HEALTH_PROTO_RELATIVE_PATH, dirname(fileURLToPath(import.meta.url)));
  const definition = protoLoader.loadSync(protoPath, { keepCase: true, enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const { Health } = pkg.grpc.health.v1;
  loaded = { healthService: Health.service, HealthClient: Health };
  return loaded;
}
