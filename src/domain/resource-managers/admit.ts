/**
 * The resource managers' admission (Go's topology manager admit handler, the one
 * GetAllocateResourcesPodAdmitHandler answers: pkg/kubelet/cm/topologymanager/scope*.go): it walks
 * the pod's containers, init containers first, asks each hint provider for its NUMA hints, merges
 * them under the topology manager's policy, and asks each allocator for the container's share with
 * the merged affinity. The first refusal refuses the pod; nothing of it is kept then (Go leaves the
 * earlier containers' share to its stale-state clean-up). Pure: the syncLoop calls it at admission,
 * after the sysctls handler and before the predicates, and keeps what it answers.
 *
 * A pod re-added after a restart finds its share in `assignments` and keeps it: each provider hands
 * back what a container already has (Go's Allocate returns early for such a container).
 */
import type { Container, Pod } from '../pod/types.js';
import { withoutPod, type Assignments, type ContainerAssignment, type PodAssignment } from './assignments.js';
import type { ResourceInventory } from './inventory.js';
import { settleMemory } from './memory-provider.js';
import { RESOURCE_PROVIDERS } from './providers.js';
import { TOPOLOGY_AFFINITY_ERROR, type TopologyHint } from './topology/hint.js';
import { mergeHints as mergeByPolicy } from './topology/policy.js';

export type { TopologyHint };

/** What a provider is asked with. */
export interface ProviderContext {
  pod: Pod;
  inventory: ResourceInventory;
  /** Every other pod's share, by uid. */
  assignments: Assignments;
  /** What this pod's containers have so far: the earlier containers' (init containers' CPUs are reused), and after a restart its own. */
  podAssignment: PodAssignment;
}

/** A refusal: Go's admission error type (the pod's reason) and the error's text. */
export interface ResourceRefusal { ok: false; reason: string; message: string }

export interface ResourceProvider {
  name: string; // 'cpu' | 'memory' | 'devices'
  /** Go's GetTopologyHints / GetPodTopologyHints: per resource name, the NUMA hints; empty object = no preference. */
  hints(ctx: ProviderContext, container: Container | null /* null: pod scope */): Record<string, TopologyHint[]>;
  /** Go's Allocate: this container's share, or a refusal (reason + the error's text). */
  allocate(ctx: ProviderContext, container: Container, affinity: TopologyHint | null): { ok: true; assignment: ContainerAssignment } | ResourceRefusal;
}

export interface AdmitResourcesInput {
  pod: Pod;
  inventory: ResourceInventory;
  /** Everything assigned now, by pod uid (this pod's own after a restart). */
  assignments: Assignments;
}

export type AdmitResourcesResult =
  | { admit: true; assignment: PodAssignment }
  /** `container`: the one refused; `provider`: the one that refused it (absent: the topology manager's merge). */
  | { admit: false; reason: string; message: string; container: string; provider?: string };

/** The merged affinity, or the topology manager's refusal. */
type Merged = { admit: true; affinity: TopologyHint | null } | { admit: false };

/** The topology manager's merge of the providers' hints under its policy (Go's scope calculateAffinity). */
function mergeHints(inventory: ResourceInventory, hints: Record<string, TopologyHint[]>[]): Merged {
  const merged = mergeByPolicy(inventory.topology, hints);
  if (!merged.admit) return { admit: false };
  const { numaNodes, preferred } = merged.affinity;
  return { admit: true, affinity: numaNodes === null ? null : { numaNodes, preferred } };
}

/** Go's TopologyAffinityError is an admission error of its own: its type and text as they are. */
const topologyRefusal = (container: string): AdmitResourcesResult => ({ admit: false, ...TOPOLOGY_AFFINITY_ERROR, container });

/** Go's admission.GetPodAdmitResult: every allocation error reads the same way, its type as the reason. */
function refusal(reason: string, message: string, container: string, provider?: string): AdmitResourcesResult {
  return { admit: false, reason, message: `Allocate failed due to ${message}, which is unexpected`, container, ...(provider !== undefined ? { provider } : {}) };
}

const containersOf = (pod: Pod): Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];

export function admitResources(input: AdmitResourcesInput, providers: readonly ResourceProvider[] = RESOURCE_PROVIDERS): AdmitResourcesResult {
  const { pod, inventory } = input;
  const uid = pod.metadata.uid ?? '';
  const assignments = withoutPod(input.assignments, uid);
  let podAssignment: PodAssignment = { ...(input.assignments[uid] ?? {}) };
  const ctx = (): ProviderContext => ({ pod, inventory, assignments, podAssignment });
  const aligned = inventory.topology.policy !== 'none';
  const merge = (container: Container | null): Merged => mergeHints(inventory, providers.map((p) => p.hints(ctx(), container)));
  // Pod scope: one affinity for every container, merged from the pod's hints.
  const podMerged = aligned && inventory.topology.scope === 'pod' ? merge(null) : null;
  if (podMerged && !podMerged.admit) return topologyRefusal(containersOf(pod)[0]?.name ?? '');
  for (const container of containersOf(pod)) {
    const merged = podMerged ?? (aligned ? merge(container) : { admit: true as const, affinity: null });
    if (!merged.admit) return topologyRefusal(container.name);
    // What it had before a restart stays; the providers hand it back (or add to it).
    let share: ContainerAssignment = podAssignment[container.name] ?? {};
    for (const provider of providers) {
      const allocated = provider.allocate(ctx(), container, merged.affinity);
      if (!allocated.ok) return refusal(allocated.reason, allocated.message, container.name, provider.name);
      share = { ...share, ...allocated.assignment };
    }
    podAssignment = { ...podAssignment, [container.name]: share };
  }
  return { admit: true, assignment: settleMemory(pod, podAssignment) };
}
