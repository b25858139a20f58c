/**
 * The gRPC prober (Go: pkg/probe/grpc, the grpc.health.v1 Check call) is not implemented in
 * kubelet-ts. Every attempt is `unknown`, which the worker discards as Go discards prober errors:
 * a readiness gRPC probe therefore keeps its container not ready, a liveness one never restarts it,
 * and a startup one never lets it start. The output says so, for the pod's events and the logs.
 */
import type { ProbeOutcome, ProbeTarget } from '../../domain/probe/types.js';

type GrpcTarget = Extract<ProbeTarget, { kind: 'grpc' }>;

export async function grpcProbe(target: GrpcTarget): Promise<ProbeOutcome> {
  return {
    result: 'unknown',
    output: `gRPC probes are not implemented in kubelet-ts (${target.host}:${target.port}, service "${target.service}")`,
  };
}
