/**
 * What the kubelet reads back from its own Node in the API server, as Go's node informer gives it
 * to admission (labels, taints) and to the node status sync (spec.podCIDRs for updatePodCIDR).
 * Only these fields: a Node changes every 10 s with its status, and only a change of these is news.
 * Pure.
 */
import type { Taint } from '../api/common-types.js';
import type { NodeObject } from './api-objects.js';

export interface LiveNode {
  /** Orders two readings (Go's isNewer over the cached node); '' when the server gave none. */
  resourceVersion: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** spec.podCIDRs joined with ',' (Go's updateNode), or spec.podCIDR; '' while none is allocated. */
  podCIDR: string;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s !== '') : []);

export function liveNodeOf(node: NodeObject): LiveNode {
  const spec = node.spec ?? {};
  const cidrs = strings(spec['podCIDRs']);
  const single = typeof spec['podCIDR'] === 'string' ? spec['podCIDR'] : '';
  return {
    resourceVersion: node.metadata.resourceVersion ?? '',
    labels: { ...(node.metadata.labels ?? {}) },
    taints: [...(spec.taints ?? [])],
    podCIDR: cidrs.length > 0 ? cidrs.join(',') : single,
  };
}

const sortedEntries = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const taintKey = (t: Taint): string => JSON.stringify([t.key, t.value ?? '', t.effect, t.timeAdded ?? '']);

/** The same labels, taints (in order, as the Node lists them) and pod CIDR: the resourceVersion aside. */
export function sameLiveNode(a: LiveNode, b: LiveNode): boolean {
  return a.podCIDR === b.podCIDR
    && sortedEntries(a.labels) === sortedEntries(b.labels)
    && a.taints.length === b.taints.length
    && a.taints.every((t, i) => taintKey(t) === taintKey(b.taints[i]!));
}

/**
 * Whether `candidate` may replace `current`: Go keeps the newer of its cached Node and the
 * informer's by resourceVersion read as an integer, and takes the informer's when either does not
 * parse. So a watch event that arrives after a fresher GET does not turn the labels back.
 */
export function isNewerLiveNode(candidate: LiveNode, current: LiveNode | null): boolean {
  if (current === null) return true;
  const version = (rv: string): bigint | null => (/^\d+$/.test(rv) ? BigInt(rv) : null);
  const a = version(candidate.resourceVersion);
  const b = version(current.resourceVersion);
  return a === null || b === null || a > b;
}
