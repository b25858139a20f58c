/**
 * A pod's volumes released (the pod is terminal, or its worker is done): each is torn down; with
 * `removeDirectory` (the pod is gone) the pod's directory is removed after, by an effect that
 * refuses to delete through anything still mounted (housekeeping's sweep of pod directories no one
 * knows is in reconstruction.ts, with the volumes found on disk it waits for).
 */
import type { VolumeDecision, VolumeManagerCommand } from './commands.js';
import { releaseReconstructed } from './reconstruction.js';
import type { PodVolumesEntry, VolumeManagerState } from './state.js';

export function decideRelease(state: VolumeManagerState, podUid: string, removeDirectory: boolean): VolumeDecision {
  const entry = state.pods[podUid];
  if (!entry) {
    // Volumes found on disk for a pod that never synced go first; its directory after them.
    const reconstructed = releaseReconstructed(state, podUid, removeDirectory);
    if (reconstructed.held || !removeDirectory) return { state: reconstructed.state, commands: reconstructed.commands };
    return { state, commands: [{ kind: 'removePodDirectory', podUid }] };
  }
  if (entry.releasing) {
    if (!removeDirectory || entry.removeDirectory) return { state, commands: [] };
    const next = { ...entry, removeDirectory: true };
    const after = { ...state, pods: { ...state.pods, [podUid]: next } };
    // Already torn down (a terminal pod now deleted): only its directory is left to remove.
    return Object.keys(next.volumes).length === 0 ? finishRelease(after, podUid, next) : { state: after, commands: [] };
  }
  const volumes: PodVolumesEntry['volumes'] = {};
  const commands: VolumeManagerCommand[] = [];
  for (const [name, v] of Object.entries(entry.volumes)) {
    if (v.state === 'unsupported') continue;
    volumes[name] = { ...v, state: 'unmounting' };
    commands.push({ kind: 'tellVolume', podUid, volumeName: name, message: { type: 'volume.unmount' } });
  }
  const next = { ...entry, volumes, waiting: false, releasing: true, removeDirectory };
  const after = { ...state, pods: { ...state.pods, [podUid]: next } };
  if (Object.keys(volumes).length > 0) return { state: after, commands };
  const finished = finishRelease(after, podUid, next);
  return { state: finished.state, commands: [...commands, ...finished.commands] };
}

/**
 * Every volume of a released pod is down: its directory goes next, or (a terminal pod not yet
 * deleted) its entry stays, releasing, so a late sync does not mount again.
 */
export function finishRelease(state: VolumeManagerState, podUid: string, entry: PodVolumesEntry): VolumeDecision {
  if (entry.removeDirectory) return { state, commands: [{ kind: 'removePodDirectory', podUid }] };
  return { state: { ...state, pods: { ...state.pods, [podUid]: entry } }, commands: [] };
}

/** A directory effect answered: it is stopped; a removed pod directory's pod is forgotten. */
export function decideDirectoryAnswered(state: VolumeManagerState, effectId: string, podUid: string | undefined): VolumeDecision {
  const commands: VolumeManagerCommand[] = [{ kind: 'stop', id: effectId }];
  if (podUid === undefined || !state.pods[podUid]?.releasing) return { state, commands };
  const { [podUid]: _gone, ...pods } = state.pods;
  return { state: { ...state, pods }, commands };
}
