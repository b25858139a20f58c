/**
 * Critical pods (Go: pkg/kubelet/types IsCriticalPod): static pods, mirror pods, and pods whose
 * priority is at least system-cluster-critical's. The eviction manager never evicts them and its
 * admission handler admits them under any pressure.
 */
import { CONFIG_MIRROR_ANNOTATION } from '../pod-config/types.js';
import { isStaticPod } from './phase.js';
import type { Pod } from './types.js';

/** Go's scheduling.SystemCriticalPriority (2 × 10⁹). */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

export function isCriticalPod(pod: Pod): boolean {
  if (isStaticPod(pod)) return true;
  if (pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined) return true;
  return (pod.spec.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
}
