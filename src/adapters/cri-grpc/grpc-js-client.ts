/**
 * grpc-js's client for runtime.v1.RuntimeService, on the same codec as the daemon's: for benchmarks
 * and tests that call a runtime's socket the way any gRPC client would. The daemon does not
 * (http2-unary-client.ts), and nothing it loads imports this module.
 */
import * as grpc from '@grpc/grpc-js';
import { loadCriProto } from './proto.js';

let constructor: grpc.ServiceClientConstructor | undefined;

export function runtimeServiceClient(): grpc.ServiceClientConstructor {
  constructor ??= grpc.makeClientConstructor(loadCriProto().runtimeService, 'runtime.v1.RuntimeService');
  return constructor;
}
