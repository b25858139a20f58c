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
import { RESOURCE_PROVIDERS } from './providers.js';

/** A NUMA affinity: the nodes as sorted ids (Go's bitmask), and whether the provider prefers it. */
export interface TopologyHint { numaNodes: number[]; preferred: boolean }

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
  | { admit: false; reason: string; message: string };

/** The merged affinity, or the topology manager's refusal. */
type Merged = { admit: true; affinity: TopologyHint | null } | { admit: false; reason: string; message: string };

/** The topology manager's merge of the providers' hints; without a policy of its own: no affinity. */
function mergeHints(_inventory: ResourceInventory, _hints: Record<string, TopologyHint[]>[]): Merged {
  return { admit: true, affinity: null };
}

/** Go's admission.GetPodAdmitResult: every allocation error reads the same way, its type as the reason. */
function refusal(reason: string, message: string): AdmitResourcesResult {
  return { admit: false, reason, message: `Allocate failed due to ${message}, which is unexpected` };
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
  if (podMerged && !podMerged.admit) return refusal(podMerged.reason, podMerged.message);
  for (const container of containersOf(pod)) {
    const merged = podMerged ?? (aligned ? merge(container) : { admit: true as const, affinity: null });
    if (!merged.admit) return refusal(merged.reason, merged.message);
    // What it had before a restart stays; the providers hand it back (or add to it).
    let share: ContainerAssignment = podAssignment[container.name] ?? {};
    for (const provider of providers) {
      const allocated = provider.allocate(ctx(), container, merged.affinity);
      if (!allocated.ok) return refusal(allocated.reason, allocated.message);
      share = { ...share, ...allocated.assignment };
    }
    podAssignment = { ...podAssignment, [container.name]: share };
  }
  return { admit: true, assignment: podAssignment };
}
