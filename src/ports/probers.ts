/**
 * The probers the probe actors run attempts through, one per handler kind: built by
 * src/adapters/probers (createProbers); tests hand in canned answers.
 */
import type { ProbeOutcome, ProbeTarget } from '../domain/probe/types.js';

/** Runs one probe attempt against a resolved target; never rejects for a probe-level failure. */
export type Prober<T extends ProbeTarget['kind']> = (target: Extract<ProbeTarget, { kind: T }>) => Promise<ProbeOutcome>;

export interface Probers {
  exec: Prober<'exec'>;
  httpGet: Prober<'httpGet'>;
  tcpSocket: Prober<'tcpSocket'>;
  grpc: Prober<'grpc'>;
}
