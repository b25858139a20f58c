/**
 * The resource managers' shares in the syncLoop: released when a pod's worker is done (Go frees a
 * terminated pod's CPUs and devices: removeStaleState, UpdateAllocatedDevices), and, once every
 * source was seen, dropped for the pods no source has any more (a state file read at start-up may
 * name pods deleted while the kubelet was down). Each change goes out as one `resourcesChanged`.
 */
import { withoutPod } from '../resource-managers/assignments.js';
import type { Decision } from './commands.js';
import { isRunningLifecycle, type SyncLoopState } from './state.js';

type ResourceState = Pick<SyncLoopState, 'resources'>;

/** The pod's share goes back to the pools. */
export function releaseResources<S extends ResourceState>(state: S, uid: string): Decision<S> {
  const resources = withoutPod(state.resources, uid);
  if (resources === state.resources) return { state, commands: [] };
  return { state: { ...state, resources }, commands: [{ kind: 'resourcesChanged', assignments: resources }] };
}

/** Every source seen: the shares of pods that are neither running nor being killed go (Go's removeStaleState once the sources are ready). */
export function dropStaleResources<S extends Pick<SyncLoopState, 'resources' | 'pods' | 'orphans' | 'awaitingNode'>>(state: S): Decision<S> {
  const stale = Object.keys(state.resources).filter((uid) => !isRunningLifecycle(state.pods[uid]?.lifecycle) && !state.orphans[uid] && !state.awaitingNode[uid]);
  if (stale.length === 0) return { state, commands: [] };
  const resources = stale.reduce(withoutPod, state.resources);
  return { state: { ...state, resources }, commands: [{ kind: 'resourcesChanged', assignments: resources }] };
}
