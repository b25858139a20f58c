/** Probe worker actor ids (Go: probeKey{podUID, containerName, probeType}). */
import { probeWorkerId } from '../actor-ids.js';
import type { ProbeType } from './types.js';

export const PROBE_TYPES: readonly ProbeType[] = ['startup', 'liveness', 'readiness'];

export function probeActorId(podUid: string, containerName: string, type: ProbeType): string {
  return probeWorkerId(podUid, containerName, type);
}
