/**
 * Probe defaults as the API server applies them (Go: SetDefaults_Probe, SetDefaults_HTTPGetAction).
 * Pods from the API server arrive defaulted; static pods from files may not, so the kubelet applies
 * the same defaults here before using a probe.
 */
import type { Container, Probe } from '../pod/types.js';
import type { ProbeResult, ProbeType } from './types.js';

export interface ProbeTiming {
  initialDelaySeconds: number;
  timeoutSeconds: number;
  periodSeconds: number;
  successThreshold: number;
  failureThreshold: number;
}

/** Go treats 0 as "unset" for these fields, so 0 and absent both take the default. */
export function probeTiming(probe: Probe): ProbeTiming {
  return {
    initialDelaySeconds: Math.max(0, probe.initialDelaySeconds ?? 0),
    timeoutSeconds: positiveOr(probe.timeoutSeconds, 1),
    periodSeconds: positiveOr(probe.periodSeconds, 10),
    successThreshold: positiveOr(probe.successThreshold, 1),
    failureThreshold: positiveOr(probe.failureThreshold, 3),
  };
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value === undefined || value <= 0 ? fallback : value;
}

/** The container's probe of the given type, if it has one. */
export function containerProbe(container: Container, type: ProbeType): Probe | undefined {
  switch (type) {
    case 'liveness':
      return container.livenessProbe;
    case 'readiness':
      return container.readinessProbe;
    case 'startup':
      return container.startupProbe;
  }
}

/**
 * What a worker reports before its first verdict (Go: worker.initialValue): a container is not
 * ready until its readiness probe says so, is alive until its liveness probe says otherwise, and
 * has not started (unknown) until its startup probe succeeds.
 */
export function initialProbeResult(type: ProbeType): ProbeResult {
  switch (type) {
    case 'readiness':
      return 'failure';
    case 'liveness':
      return 'success';
    case 'startup':
      return 'unknown';
  }
}
