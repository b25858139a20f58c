/**
 * The probers, one per handler kind, as the probe actors take them (domain/probe/types: Probers).
 * The composition root builds them once: `createProbeActors({ probers: createProbers({ execSync }) })`.
 */
import type { Probers } from '../../ports/probers.js';
import { execProbe, type ExecSyncFn } from './exec-prober.js';
import { httpProbe } from './http-prober.js';
import { tcpProbe } from './tcp-prober.js';

export type { ExecSyncFn } from './exec-prober.js';

export function createProbers(deps: { execSync: ExecSyncFn }): Probers {
  return {
    exec: (target) => execProbe(deps.execSync, target),
    httpGet: httpProbe,
    tcpSocket: tcpProbe,
    // grpc-js is loaded with the first gRPC probe, not at start-up (see runtime-connector.ts).
    grpc: async (target) => (await import('./grpc-prober.js')).grpcProbe(target),
  };
}
