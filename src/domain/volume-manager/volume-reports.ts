/** What a volume's actor reports: set up, failed to set up, torn down, or crashed. */
import type { PersistentVolumeRef } from '../volumes/pod-volumes.js';
import type { VolumeDecision, VolumeManagerCommand } from './commands.js';
import { finishRelease } from './release.js';
import { unmountedOf, tellWorker, type PodVolumesEntry, type VolumeManagerState, type VolumeMountFacts } from './state.js';

/** What decideVolumeMounted reads of a `volume.mounted` report. */
export interface MountedReport {
  podUid: string;
  volumeName: string;
  hostPath: string;
  changed: boolean;
  persistent?: PersistentVolumeRef;
}

const withVolume = (state: VolumeManagerState, podUid: string, entry: PodVolumesEntry): VolumeManagerState => ({ ...state, pods: { ...state.pods, [podUid]: entry } });

/**
 * Set up: the pod's waiting worker hears once the last one is; a remount that failed before has
 * recovered. Where the volume is (and its claim) is kept for the volume stats.
 */
export function decideVolumeMounted(state: VolumeManagerState, report: MountedReport): VolumeDecision {
  const { podUid, volumeName } = report;
  const entry = state.pods[podUid];
  const volume = entry?.volumes[volumeName];
  if (!entry || !volume || volume.state === 'unmounting') return { state, commands: [] };
  const mount = mountFacts(volume.mount, report);
  if (volume.state === 'mounted') {
    if (volume.error === null && mount === volume.mount) return { state, commands: [] };
    return { state: withVolume(state, podUid, { ...entry, volumes: { ...entry.volumes, [volumeName]: { ...volume, state: 'mounted', error: null, mount } } }), commands: [] };
  }
  const next: PodVolumesEntry = { ...entry, volumes: { ...entry.volumes, [volumeName]: { ...volume, state: 'mounted', error: null, mount } } };
  const commands: VolumeManagerCommand[] = [];
  if (next.waiting) {
    next.waiting = unmountedOf(next).length > 0;
    commands.push(tellWorker(podUid, next));
  }
  return { state: withVolume(state, podUid, next), commands };
}

/** The facts of a `volume.mounted` report; the same object when nothing the stats read changed. */
function mountFacts(previous: VolumeMountFacts | undefined, report: MountedReport): VolumeMountFacts {
  const samePlace = previous !== undefined && previous.hostPath === report.hostPath &&
    previous.persistent?.claimName === report.persistent?.claimName && previous.persistent?.pvName === report.persistent?.pvName &&
    previous.persistent?.plugin === report.persistent?.plugin;
  if (samePlace && !report.changed) return previous;
  return {
    hostPath: report.hostPath,
    ...(report.persistent ? { persistent: report.persistent } : {}),
    contentVersion: (previous?.contentVersion ?? 0) + 1,
  };
}

/** How a set-up failed, from its error's code. */
export type MountFailureKind =
  /** The populator could not process the claim: no SetUp event; a waiting worker fails its sync with it at once. */
  | 'processing'
  /** The plugin's message is Go's whole event text (another operation than SetUp, a PV's name). */
  | 'operation'
  | 'setUp';

export function mountFailureKind(code: string): MountFailureKind {
  if (code === 'KLT_ERR_VOLUME_PROCESS') return 'processing';
  if (code === 'KLT_ERR_VOLUME_OPERATION') return 'operation';
  return 'setUp';
}

/** A failed set-up is reported (Go's FailedMount) and its error kept for the worker's timeout. */
export function decideVolumeMountFailed(state: VolumeManagerState, podUid: string, volumeName: string, message: string, kind: MountFailureKind = 'setUp'): VolumeDecision {
  const entry = state.pods[podUid];
  const volume = entry?.volumes[volumeName];
  if (!entry || !volume) return { state, commands: [] };
  if (kind === 'processing') {
    const next: PodVolumesEntry = { ...entry, volumes: { ...entry.volumes, [volumeName]: { ...volume, error: message, unprocessed: true } } };
    return { state: withVolume(state, podUid, next), commands: next.waiting ? [tellWorker(podUid, next)] : [] };
  }
  const { unprocessed: _was, ...rest } = volume;
  return {
    state: withVolume(state, podUid, { ...entry, volumes: { ...entry.volumes, [volumeName]: { ...rest, error: message } } }),
    commands: [{ kind: 'emit', event: { type: 'volume.mount.failed', pod: entry.pod, volumeName, message, ...(kind === 'operation' ? { eventText: message } : {}) } }],
  };
}

/** Torn down: its actor is stopped (it does not end by itself) and the pod forgets it; the last one finishes the release. */
export function decideVolumeUnmounted(state: VolumeManagerState, podUid: string, volumeName: string, volumeActorId: string): VolumeDecision {
  const commands: VolumeManagerCommand[] = [{ kind: 'stop', id: volumeActorId }];
  const entry = state.pods[podUid];
  if (!entry) return { state, commands };
  const { [volumeName]: _done, ...volumes } = entry.volumes;
  const next = { ...entry, volumes };
  const after = withVolume(state, podUid, next);
  if (Object.keys(volumes).length > 0) return { state: after, commands };
  const finished = finishRelease(after, podUid, next);
  return { state: finished.state, commands: [...commands, ...finished.commands] };
}

/**
 * A volume's actor threw (a kubelet bug met with one volume's data): that volume is failed and
 * reported, the pod's wait runs out as for a volume that never mounts, and the kubelet goes on. A
 * pod being released waited for this volume's teardown, which will not come.
 */
export function decideVolumeCrashed(state: VolumeManagerState, crashed: { id: string; podUid: string; volumeName: string; message: string }): VolumeDecision {
  const commands: VolumeManagerCommand[] = [{ kind: 'stop', id: crashed.id }];
  const entry = state.pods[crashed.podUid];
  if (!entry || entry.volumes[crashed.volumeName] === undefined) return { state, commands };
  const message = `the kubelet failed to set up volume "${crashed.volumeName}": ${crashed.message}`;
  commands.push({ kind: 'emit', event: { type: 'volume.mount.failed', pod: entry.pod, volumeName: crashed.volumeName, message } });
  const volumes = { ...entry.volumes, [crashed.volumeName]: { state: 'unsupported' as const, error: message } };
  const next = { ...entry, volumes };
  const after = withVolume(state, crashed.podUid, next);
  if (!next.releasing || !Object.values(volumes).every((v) => v.state === 'unsupported')) return { state: after, commands };
  const finished = finishRelease(after, crashed.podUid, { ...next, volumes: {} });
  return { state: finished.state, commands: [...commands, ...finished.commands] };
}
