/** What the volume manager keeps per pod, as its decisions (this folder) read and return it. */
export type VolumeState = 'mounting' | 'mounted' | 'unmounting' | 'unsupported';

export interface PodRef { namespace: string; name: string; uid: string }

export interface PodVolumesEntry {
  pod: PodRef;
  volumes: Record<string, { state: VolumeState; error: string | null }>;
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
