/**
 * activeDeadlineSeconds (pkg/kubelet/active_deadline.go): a pod running longer than its deadline,
 * counted from status.startTime, is evicted: phase Failed, reason DeadlineExceeded. Pure: the time
 * is passed in.
 */
import type { Pod } from './types.js';

/** Milliseconds left before the deadline (≤ 0 when past), or null when the pod has none or has not started. */
export function activeDeadlineRemainingMs(pod: Pod, startTime: string | undefined, nowMs: number): number | null {
  const seconds = pod.spec.activeDeadlineSeconds;
  if (seconds === undefined || startTime === undefined) return null;
  const startMs = Date.parse(startTime);
  if (Number.isNaN(startMs)) return null;
  return startMs + seconds * 1000 - nowMs;
}

/** pastActiveDeadline: the pod has run at least activeDeadlineSeconds. */
export function isPastActiveDeadline(pod: Pod, startTime: string | undefined, nowMs: number): boolean {
  const remaining = activeDeadlineRemainingMs(pod, startTime, nowMs);
  return remaining !== null && remaining <= 0;
}
