/**
 * The grace period a pod worker kills with (pod_workers.go calculateEffectiveGracePeriod): it can
 * only shrink once termination started. The API server's deletionGracePeriodSeconds, then a
 * kill request's override (eviction, deletion), each win when shorter; with neither, the pod's
 * terminationGracePeriodSeconds (30 s when unset, the API default); never less than 1 s.
 */
import type { Pod } from './types.js';

export const defaultTerminationGracePeriodSeconds = 30;

/** `current` is the grace period already in force (undefined before termination started). */
export function effectiveGracePeriodSeconds(pod: Pod, current: number | undefined, requested: number | undefined): number {
  let grace = current ?? 0;
  const deletion = pod.metadata.deletionGracePeriodSeconds;
  if (deletion !== undefined && (grace === 0 || deletion < grace)) grace = deletion;
  if (requested !== undefined && (grace === 0 || requested < grace)) grace = requested;
  if (grace === 0) grace = pod.spec.terminationGracePeriodSeconds ?? defaultTerminationGracePeriodSeconds;
  return Math.max(grace, 1);
}
