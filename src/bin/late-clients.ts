/**
 * The API clients exist only once run.clients has built them, but the effects that use them are
 * built at start-up. These views forward each call to the clients of the moment, so a node, lease
 * or status effect that runs before run.clients fails with the slot's KubeletBug (naming the phase)
 * rather than on an undefined client. Written out per method: each port stays checked by tsc.
 */
import type { HeartbeatApi, NodeApi, PodApi } from '../ports/apiserver.js';

export function lateNodeApi(get: () => NodeApi): NodeApi {
  return {
    getNode: (name) => get().getNode(name),
    createNode: (node) => get().createNode(node),
    patchNode: (name, patch) => get().patchNode(name, patch),
    patchNodeStatus: (name, status) => get().patchNodeStatus(name, status),
  };
}

export function lateHeartbeatApi(get: () => HeartbeatApi): HeartbeatApi {
  return {
    ...lateNodeApi(get),
    getLease: (namespace, name) => get().getLease(namespace, name),
    createLease: (lease) => get().createLease(lease),
    updateLease: (lease) => get().updateLease(lease),
    reopen: () => get().reopen(),
  };
}

export type StatusPodApi = Pick<PodApi, 'patchPodStatus' | 'deletePod' | 'createPod' | 'getPod'>;

export function lateStatusPodApi(get: () => StatusPodApi): StatusPodApi {
  return {
    patchPodStatus: (namespace, name, patch) => get().patchPodStatus(namespace, name, patch),
    deletePod: (namespace, name, opts) => get().deletePod(namespace, name, opts),
    createPod: (namespace, pod) => get().createPod(namespace, pod),
    getPod: (namespace, name) => get().getPod(namespace, name),
  };
}
