/** What the volume manager keeps per pod, as its decisions (this folder) read and return it. */
import type { PersistentVolumeRef, VolumePluginName } from '../volumes/pod-volumes.js';
import type { ReconstructedEntry } from './reconstruction.js';

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
  /** The error is the populator's (a claim not usable yet), not a failed set-up. */
  unprocessed?: boolean;
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
  /** The volumes found on disk at start, by reconstructedVolumeId, until torn down; absent until the scan answered. */
  reconstruction?: Record<string, ReconstructedEntry>;
  /** The pods known to a sweep asked for before the scan answered: the sweep runs once it has. */
  sweepWaiting?: string[];
}

/** The volumes whose claim could not be processed, with why, in name order. */
export function processingErrorsOf(entry: PodVolumesEntry): { volumeName: string; message: string }[] {
  return Object.entries(entry.volumes)
    .filter(([, v]) => v.unprocessed === true && v.error !== null && v.state !== 'mounted')
    .map(([volumeName, v]) => ({ volumeName, message: v.error ?? '' }))
    .sort((a, b) => (a.volumeName < b.volumeName ? -1 : 1));
}

/** What the pod's worker is told: the volumes not mounted yet and, when some could not be processed, why. */
export function tellWorker(podUid: string, entry: PodVolumesEntry): { kind: 'tellWorker'; podUid: string; unmounted: string[]; failedToProcess?: { volumeName: string; message: string }[] } {
  const failed = processingErrorsOf(entry);
  return { kind: 'tellWorker', podUid, unmounted: unmountedOf(entry), ...(failed.length > 0 ? { failedToProcess: failed } : {}) };
}

/** The volumes of the pod that are not mounted (yet), by name. */
export function unmountedOf(entry: PodVolumesEntry): string[] {
  return Object.entries(entry.volumes).filter(([, v]) => v.state !== 'mounted').map(([name]) => name).sort();
}
