/** What the volume manager keeps per pod, as its decisions (this folder) read and return it. */
import type { PersistentVolumeRef, VolumePluginName } from '../volumes/pod-volumes.js';

export type VolumeState = 'mounting' | 'mounted' | 'unmounting' | 'unsupported';

/**
 * What the volume stats need of a volume, kept from its spec when its actor starts (Go reads them
 * from the mounter in the actual state of world).
 */
export interface VolumeSourceFacts {
  plugin: VolumePluginName;
  /** Counted in the pod's ephemeral storage (Go's IsLocalEphemeralVolume). */
  localEphemeral: boolean;
}

/** Where a set-up put the volume, from its last `volume.mounted`. */
export interface VolumeMountFacts {
  hostPath: string;
  persistent?: PersistentVolumeRef;
  /** Set-ups that changed the content: a measurement cached once per mount is taken again after each. */
  contentVersion: number;
}

export interface PodVolume {
  state: VolumeState;
  error: string | null;
  source?: VolumeSourceFacts;
  mount?: VolumeMountFacts;
}

export interface PodRef { namespace: string; name: string; uid: string }

export interface PodVolumesEntry {
  pod: PodRef;
  volumes: Record<string, PodVolume>;
  /** A worker waits for its volumes. */
  waiting: boolean;
  releasing: boolean;
  removeDirectory: boolean;
}

export interface VolumeManagerState {
  pods: Record<string, PodVolumesEntry>;
  /** Orphan sweeps started (each effect gets its own id). */
  sweeps: number;
}

/** The volumes of the pod that are not mounted (yet), by name. */
export function unmountedOf(entry: PodVolumesEntry): string[] {
  return Object.entries(entry.volumes).filter(([, v]) => v.state !== 'mounted').map(([name]) => name).sort();
}
