/**
 * The order deferred resizes are weighed again in (Go's allocation manager, sortPendingResizes): a
 * resize that asks for no more first (it always fits), then the higher priority, then Guaranteed
 * before Burstable, then the one deferred longest. Earlier resizes take what is free first, so the
 * order decides which of two competing resizes is allocated.
 */
import { podQOS } from '../pod/qos.js';
import { podRequests } from '../pod/resource-requests.js';
import type { Pod } from '../pod/types.js';
import { byCodeUnits } from '../text/code-unit-order.js';

/** Go's retryDelay: deferred resizes are weighed again this often, whatever else happens. */
export const RESIZE_RETRY_PERIOD_MS = 3 * 60 * 1000;

export interface DeferredResize {
  uid: string;
  /** The pod's spec, with the resize it asks. */
  pod: Pod;
  /** The pod at its allocation. */
  allocated: Pod;
  /** When it was deferred, as an order: smaller is earlier. */
  since: number;
}

/** Go's isResizeIncreasingRequests: the spec asks more cpu or memory than the allocation holds. */
export function resizeIncreasesRequests(pod: Pod, allocated: Pod): boolean {
  const asked = podRequests(pod);
  const held = podRequests(allocated);
  return (asked.cpu ?? 0) > (held.cpu ?? 0) || (asked.memory ?? 0) > (held.memory ?? 0);
}

export function resizeRetryOrder(deferred: readonly DeferredResize[]): string[] {
  const keyed = deferred.map((d) => ({
    uid: d.uid,
    increasing: resizeIncreasesRequests(d.pod, d.allocated),
    priority: d.pod.spec.priority ?? 0,
    guaranteed: podQOS(d.pod) === 'Guaranteed',
    since: d.since,
  }));
  keyed.sort((a, b) => Number(a.increasing) - Number(b.increasing)
    || b.priority - a.priority
    || Number(b.guaranteed) - Number(a.guaranteed)
    || a.since - b.since
    || byCodeUnits(a.uid, b.uid));
  return keyed.map((k) => k.uid);
}
