/**
 * The pod resources API's reads (the PodResourcesSource port) over the syncLoop's latest snapshot:
 * the pods the kubelet holds, the resource managers' assignments it keeps, and what the node can
 * give from its resource inventory. It hands out the same state object until one of those changes.
 *
 * Go's pod manager drops a pod its source removed, and GetActivePods leaves out a pod that is
 * known terminated, or that reached Succeeded or Failed and is not being terminated; the same here,
 * by the syncLoop's lifecycle: `terminating` is still active, `terminated` and `rejected` are not.
 */
import type { KnownPod, PodResourcesState } from '../../domain/pod-resources/answers.js';
import { nodeAllocatable, NOTHING_ALLOCATABLE } from '../../domain/pod-resources/node-allocatable.js';
import { isTerminalPhase } from '../../domain/pod/status.js';
import type { PodEntry } from '../../domain/sync-loop/state.js';
import type { SyncLoopContext } from '../../machines/sync-loop.machine.js';
import type { PodResourcesSource } from '../../ports/pod-resources.js';
import type { DraClaimManager } from '../../ports/dra-claims.js';

function isActive(entry: PodEntry): boolean {
  if (entry.lifecycle === 'terminating') return true;
  return entry.lifecycle === 'active' && !isTerminalPhase(entry.status?.phase);
}

/** What a state is built from: the syncLoop replaces each of these whenever it changes them; the claim manager counts its changes. */
type Inputs = Partial<Pick<SyncLoopContext, 'pods' | 'resources' | 'inventory'>> & { claims?: number };
const sameInputs = (a: Inputs, b: Inputs) => a.pods === b.pods && a.resources === b.resources && a.inventory === b.inventory && a.claims === b.claims;

/** `dra`: the DRA claim manager once built (cluster mode), for the containers' dynamic resources. */
export function podResourcesSource(syncLoop: () => SyncLoopContext | undefined, dra: () => DraClaimManager | undefined = () => undefined): PodResourcesSource {
  let last: { inputs: Inputs; state: PodResourcesState } | null = null;
  const stateOf = (ctx: SyncLoopContext | undefined, claims: DraClaimManager | undefined): PodResourcesState => {
    const pods: KnownPod[] = Object.values(ctx?.pods ?? {}).filter((e) => !e.removed).map((e) => ({ pod: e.pod, active: isActive(e) }));
    return {
      pods, assignments: ctx?.resources ?? {}, allocatable: ctx ? nodeAllocatable(ctx.inventory) : NOTHING_ALLOCATABLE,
      ...(claims ? { dynamicResources: (pod, container) => claims.containerClaims(pod, container) } : {}),
    };
  };
  return {
    // The state is rebuilt only when the pods, the assignments or the inventory changed, so it is
    // the same object (the answers' version) across the syncLoop's other changes.
    state: () => {
      const ctx = syncLoop();
      const claims = dra();
      const inputs: Inputs = { pods: ctx?.pods, resources: ctx?.resources, inventory: ctx?.inventory, ...(claims ? { claims: claims.version() } : {}) };
      if (!last || !sameInputs(last.inputs, inputs)) last = { inputs, state: stateOf(ctx, claims) };
      return last.state;
    },
  };
}
