/**
 * PodObservedGenerationTracking, on (GA) in v1.35: every status the kubelet writes says which
 * generation of the pod's spec it was made from, on the status and on each condition the kubelet
 * sets (Go's podutil.CalculatePodStatusObservedGeneration and CalculatePodConditionObservedGeneration).
 * A pod without a generation (a static pod read from its file) gets none, as Go's zero is omitted.
 * Pure.
 */
import type { Pod, PodStatus } from './types.js';

/** The generation a status of `pod` observes; never below what an earlier status said (Go keeps the larger, to spare a patch). */
export function observedGenerationOf(pod: Pod, previous?: PodStatus): number | undefined {
  const generation = Math.max(pod.metadata.generation ?? 0, previous?.observedGeneration ?? 0);
  return generation > 0 ? generation : undefined;
}

/** The field to spread into a status or a condition: absent when there is no generation. */
export function observedGenerationField(generation: number | undefined): { observedGeneration?: number } {
  return generation === undefined ? {} : { observedGeneration: generation };
}
