/**
 * What a volume manager decision asks for; the machine carries each out in order as one spawn,
 * send, stop or emit.
 */
import type { Pod } from '../pod/types.js';
import type { PodVolumePlugin, VolumeProcessingError } from '../volumes/pod-volumes.js';
import type { ReconstructedVolume } from './reconstruction.js';
import type { PodRef, VolumeManagerState } from './state.js';

/** Emitted for each failed set-up: what Go's operation executor records as a FailedMount event. */
export interface VolumeMountFailed {
  type: 'volume.mount.failed';
  pod: PodRef;
  volumeName: string;
  message: string;
  /** The plugin gave Go's whole event text (another operation than SetUp, or a PV's name): used as is. */
  eventText?: string;
}

/** Emitted when a pod's wait for its volumes ran out: Go's "Unable to attach or mount volumes: …" FailedMount event. */
export interface VolumeWaitTimedOut { type: 'volume.wait.timedOut'; pod: PodRef; message: string }

export type VolumeManagerCommand =
  /** A volume's actor, which sets it up at once. */
  | { kind: 'startVolume'; pod: Pod; volumeName: string; plugin: PodVolumePlugin; requiresRemount: boolean }
  | { kind: 'tellVolume'; podUid: string; volumeName: string; message: { type: 'volume.remount'; pod: Pod } | { type: 'volume.unmount' } }
  /** To the pod's worker, when it still runs: the volumes not mounted yet (none: its containers may start). */
  | { kind: 'tellWorker'; podUid: string; unmounted: string[]; failedToProcess?: VolumeProcessingError[] }
  | { kind: 'emit'; event: VolumeMountFailed | VolumeWaitTimedOut }
  | { kind: 'removePodDirectory'; podUid: string }
  /** Pod directories of pods not in `keep` cleaned up; with `only`, just those pods' directories. */
  | { kind: 'sweepOrphanedPodDirectories'; sweep: number; keep: string[]; only?: string[] }
  /** A volume found on disk at start torn down by its own effect, whose id is `id`, after waiting `delayMs`. */
  | { kind: 'tearDownReconstructed'; id: string; volume: ReconstructedVolume; delayMs: number }
  /** Stops a child: a volume's actor or a finished directory effect, by id. */
  | { kind: 'stop'; id: string };

export interface VolumeDecision {
  state: VolumeManagerState;
  commands: VolumeManagerCommand[];
}
