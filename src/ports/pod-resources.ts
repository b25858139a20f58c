/**
 * The pod resources API (Go's ListenAndServePodResources): what its server reads at each call, and
 * how the start-up starts it. The server is a gRPC service on a unix socket under the root
 * directory (src/adapters/pod-resources); the state comes from the syncLoop's latest snapshot.
 */
import type { PodResourcesState } from '../domain/pod-resources/answers.js';

export interface PodResourcesSource {
  /**
   * The pods, the resource managers' assignments and what the node can give, now: the same object
   * until one of them changes, so callers may keep what they derive from it beside it.
   */
  state(): PodResourcesState;
}

export interface PodResourcesServerStarter {
  start(opts: {
    /** `<root-dir>/pod-resources/kubelet.sock`. */
    socketPath: string;
    /** KubeletPodResourcesGet: Get answers; off, it fails with Go's message. */
    getEnabled: boolean;
    /** KubeletPodResourcesListUseActivePods: List answers the active pods; off, every pod the kubelet knows. */
    useActivePods: boolean;
  }): Promise<{ address: string; close: () => Promise<void> }>;
}
