/**
 * A pod worker about to sync (Go's WaitForAttachAndMount and ReprocessPod): a pod seen for the first
 * time gets an actor per volume its containers mount (the populator's processPodVolumes); a known
 * one has its API-backed volumes set up again at every sync, whatever asked for it, so a ConfigMap
 * or Secret changed meanwhile shows. The worker hears what is still unmounted each time.
 */
import type { Pod } from '../pod/types.js';
import { isClaimVolume } from '../volumes/claims.js';
import { isLocalEphemeralVolume, mountedVolumes, requiresRemount, volumePluginName, volumeSourceName } from '../volumes/pod-volumes.js';
import type { VolumeDecision, VolumeManagerCommand } from './commands.js';
import { takeOverReconstructed } from './reconstruction.js';
import { unmountedOf, tellWorker, type PodVolumesEntry, type VolumeManagerState } from './state.js';

/** Go's message for a volume no plugin can mount (the operation generator's). */
function noPluginMessage(volumeName: string, source: string): string {
  return `failed to get Plugin from volumeSpec for volume "${volumeName}" err=no volume plugin matched (source "${source}")`;
}

function duplicateVolumeMessage(volumeName: string): string {
  return `the pod has more than one volume named "${volumeName}": none of them is mounted`;
}

export function decidePodSync(state: VolumeManagerState, pod: Pod): VolumeDecision {
  const uid = pod.metadata.uid;
  const known = state.pods[uid];
  if (known?.releasing) return { state, commands: [] };
  const commands: VolumeManagerCommand[] = [];
  if (known) {
    for (const name of Object.keys(known.volumes)) {
      if (known.volumes[name]?.state !== 'unsupported') commands.push({ kind: 'tellVolume', podUid: uid, volumeName: name, message: { type: 'volume.remount', pod } });
    }
    const waiting = unmountedOf(known).length > 0;
    commands.push(tellWorker(uid, known));
    return { state: waiting === known.waiting ? state : { ...state, pods: { ...state.pods, [uid]: { ...known, waiting } } }, commands };
  }
  const entry: PodVolumesEntry = { pod: { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid }, volumes: {}, waiting: false, releasing: false, removeDirectory: false };
  const volumes = mountedVolumes(pod);
  const names = volumes.map((v) => v.name);
  for (const volume of volumes) {
    if (names.indexOf(volume.name) !== names.lastIndexOf(volume.name)) {
      // Two volumes of one name (from a source that did not validate) would be two actors of one
      // id and one directory: neither is mounted, and the pod is told why.
      if (entry.volumes[volume.name] !== undefined) continue;
      const message = duplicateVolumeMessage(volume.name);
      entry.volumes[volume.name] = { state: 'unsupported', error: message };
      commands.push({ kind: 'emit', event: { type: 'volume.mount.failed', pod: entry.pod, volumeName: volume.name, message } });
      continue;
    }
    if (isClaimVolume(volume)) {
      // The claim's PV, and so its plugin, is read by the set-up (the populator's createVolumeSpec).
      entry.volumes[volume.name] = { state: 'mounting', error: null };
      commands.push({ kind: 'startVolume', pod, volumeName: volume.name, plugin: null, requiresRemount: false });
      continue;
    }
    const plugin = volumePluginName(volume);
    if (plugin === undefined) {
      const message = noPluginMessage(volume.name, volumeSourceName(volume));
      entry.volumes[volume.name] = { state: 'unsupported', error: message };
      commands.push({ kind: 'emit', event: { type: 'volume.mount.failed', pod: entry.pod, volumeName: volume.name, message } });
      continue;
    }
    entry.volumes[volume.name] = { state: 'mounting', error: null, source: { plugin, localEphemeral: isLocalEphemeralVolume(volume) } };
    commands.push({ kind: 'startVolume', pod, volumeName: volume.name, plugin, requiresRemount: requiresRemount(plugin) });
  }
  entry.waiting = unmountedOf(entry).length > 0;
  commands.push(tellWorker(uid, entry));
  const taken = takeOverReconstructed(state, uid);
  return { state: { ...taken, pods: { ...taken.pods, [uid]: entry } }, commands };
}
