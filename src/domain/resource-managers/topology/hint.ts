/**
 * The topology manager's vocabulary (Go: pkg/kubelet/cm/topologymanager): a hint is a set of NUMA
 * nodes a resource could come from, and whether that set is a preferred (narrowest) one.
 */

/** A NUMA affinity (sorted ids) and whether the provider prefers it. */
export interface TopologyHint {
  numaNodes: number[];
  preferred: boolean;
}

/**
 * What one provider says, per resource name. `null` for a resource (or for the whole provider) is
 * Go's nil: no preference. An empty list is "no NUMA node can serve it".
 */
export type ProviderHints = Record<string, TopologyHint[] | null> | null;

/**
 * A hint that may carry Go's nil affinity (`null`: any NUMA node): inside the merge, and as the merged
 * affinity handed to the allocators (the memory manager still reads `preferred` of a nil affinity).
 */
export interface TopologyAffinity {
  numaNodes: number[] | null;
  preferred: boolean;
}

export const TOPOLOGY_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'] as const;
export type TopologyPolicyName = (typeof TOPOLOGY_POLICIES)[number];
export type TopologyScopeName = 'container' | 'pod';

/** The topology manager as the node runs it: settings from the configuration, NUMA facts from the host. */
export interface TopologySettings {
  policy: TopologyPolicyName;
  scope: TopologyScopeName;
  /** topologyManagerPolicyOptions, as configured (validated at start-up). */
  options: Record<string, string>;
  /** The machine's NUMA node ids, sorted. */
  numaNodes: number[];
  /** Per node, its distance to each node by id (sysfs nodeN/distance); read only with prefer-closest-numa-nodes. */
  distances: Record<number, number[]>;
}

/** Go's TopologyAffinityError: the admission refusal when the policy finds no acceptable alignment. */
export const TOPOLOGY_AFFINITY_ERROR = {
  reason: 'TopologyAffinityError',
  message: 'Resources cannot be allocated with Topology locality',
} as const;
