/** Pods, a node and a state for the syncLoop's decisions. */
import type { AdmissionNode } from '../../../src/domain/pod/admission-node.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { EMPTY_INVENTORY } from '../../../src/domain/resource-managers/inventory.js';
import type { PodEntry, SyncLoopSettings, SyncLoopState } from '../../../src/domain/sync-loop/state.js';

export function pod(uid: string, spec: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name: uid, namespace: 'default', uid },
    spec: { containers: [{ name: 'main', image: 'busybox' }], terminationGracePeriodSeconds: 7, ...spec },
  };
}

export const node: AdmissionNode = {
  name: 'node-a', operatingSystem: 'linux', labels: { 'kubernetes.io/os': 'linux', disk: 'ssd' }, taints: [],
  allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 10 * 2 ** 30, pods: 110 },
};

export const settings: SyncLoopSettings = {
  hostIP: '10.0.0.1',
  deadContainersKept: 2,
};

export function state(pods: Record<string, Partial<PodEntry> & Pick<PodEntry, 'lifecycle'>> = {}, rest: Partial<SyncLoopState> = {}): SyncLoopState {
  const entries: Record<string, PodEntry> = {};
  for (const [uid, e] of Object.entries(pods)) entries[uid] = { pod: pod(uid), removed: false, status: null, probedStarts: {}, ...e };
  return { pods: entries, orphans: {}, runtimePodUids: [], sourcesReady: true, runtime: { healthy: true, reason: '' }, pressure: [], node, awaitingNode: {}, nodeRefreshing: false, resources: {}, inventory: EMPTY_INVENTORY, ...rest };
}
