/**
 * The volume manager's mounted volumes as the volume stats read them (Go: the stats provider's
 * ListVolumesForPod over the volume manager's GetMountedVolumesForPod): per pod, each volume set up
 * and not being torn down, with where it is and what measures it.
 */
import type { PersistentVolumeRef, VolumePluginName } from '../volumes/pod-volumes.js';
import type { PodRef, VolumeManagerState } from './state.js';

export interface MountedVolume {
  /** The pod's name for the volume. */
  name: string;
  hostPath: string;
  /** The plugin that set it up: a claim's is its PV's. */
  plugin: VolumePluginName;
  localEphemeral: boolean;
  persistent?: PersistentVolumeRef;
  contentVersion: number;
}

export interface PodMountedVolumes {
  pod: PodRef;
  volumes: MountedVolume[];
}

export function mountedVolumesByPod(state: VolumeManagerState): PodMountedVolumes[] {
  const out: PodMountedVolumes[] = [];
  for (const entry of Object.values(state.pods)) {
    if (entry.releasing) continue;
    const volumes: MountedVolume[] = [];
    for (const [name, v] of Object.entries(entry.volumes)) {
      if (v.state !== 'mounted' || !v.mount) continue;
      const { hostPath, persistent, contentVersion } = v.mount;
      // A claim's volume has no source facts: its plugin is its PV's, known once it is set up.
      const plugin = persistent?.plugin ?? v.source?.plugin;
      if (plugin === undefined) continue;
      volumes.push({
        name, hostPath, plugin, localEphemeral: v.source?.localEphemeral ?? false,
        ...(persistent ? { persistent } : {}), contentVersion,
      });
    }
    out.push({ pod: entry.pod, volumes });
  }
  return out;
}
