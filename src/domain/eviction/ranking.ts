/**
 * The order pods are evicted in, per starved resource (Go helpers.go: rankMemoryPressure,
 * rankPIDPressure, rankDiskPressureFunc over orderedBy):
 * - memory: pods using more than they request first, then lower priority first, then the larger
 *   usage above request first;
 * - ephemeral-storage / inodes: the same with disk usage (containers' rootfs + logs) and the
 *   ephemeral-storage request (inodes have no request);
 * - pids: lower priority first, then more processes first. The summary carries no process counts
 *   yet, so priority alone decides (differs from Go).
 * A pod without stats goes before every pod with stats (Go: "prioritize evicting the pod for which
 * no stats were found"). Go's sort is not stable; ours is, so equal pods keep the active-pods order.
 */
import type { EvictionCandidate, PodUsage } from './candidates.js';
import type { StarvedResource } from './signals.js';

type Cmp = (a: EvictionCandidate, b: EvictionCandidate) => number;

/** true before false (Go's cmpBool). */
const trueFirst = (a: boolean, b: boolean): number => (a === b ? 0 : a ? -1 : 1);

const withStats = (usage: (u: PodUsage) => number, then: (a: number, b: number, pa: EvictionCandidate, pb: EvictionCandidate) => number): Cmp =>
  (a, b) => (a.usage && b.usage ? then(usage(a.usage), usage(b.usage), a, b) : trueFirst(!a.usage, !b.usage));

const priority: Cmp = (a, b) => Math.sign(a.priority - b.priority);

function usageOf(resource: StarvedResource): (u: PodUsage) => number {
  if (resource === 'memory') return (u) => u.memoryBytes;
  if (resource === 'inodes') return (u) => u.inodes;
  return (u) => u.diskBytes;
}

function requestOf(resource: StarvedResource, c: EvictionCandidate): number {
  if (resource === 'memory') return c.requests.memory;
  if (resource === 'ephemeral-storage') return c.requests['ephemeral-storage'];
  return 0;
}

const exceedsRequests = (resource: StarvedResource): Cmp =>
  withStats(usageOf(resource), (ua, ub, a, b) => trueFirst(ua > requestOf(resource, a), ub > requestOf(resource, b)));

const usageAboveRequest = (resource: StarvedResource): Cmp =>
  withStats(usageOf(resource), (ua, ub, a, b) => Math.sign((ub - requestOf(resource, b)) - (ua - requestOf(resource, a))));

const orderedBy = (...cmps: Cmp[]): Cmp => (a, b) => {
  for (const cmp of cmps) {
    const r = cmp(a, b);
    if (r !== 0) return r;
  }
  return 0;
};

export function rankForEviction(resource: StarvedResource, candidates: readonly EvictionCandidate[]): EvictionCandidate[] {
  const cmp = resource === 'pids' ? priority : orderedBy(exceedsRequests(resource), priority, usageAboveRequest(resource));
  return [...candidates].sort(cmp);
}
