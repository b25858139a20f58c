/**
 * The volume manager (Go: pkg/kubelet/volumemanager, started by Kubelet.Run before the node status
 * loops): the desired state of world populator, the reconciler and WaitForAttachAndMount, as one
 * parent holding one `volume` child per pod volume (`volume:<uid>:<name>`).
 *
 * Contract:
 * - `volumes.pod.sync` (a pod worker about to sync; Go's WaitForAttachAndMount + ReprocessPod): a pod
 *   seen for the first time gets a child per volume its containers mount (the populator's
 *   processPodVolumes); a known one has its API-backed volumes set up again, at every sync whatever
 *   asked for it (a resync, a spec update, a container's start or death, a back-off's end), so a
 *   ConfigMap or Secret changed meanwhile shows even when other syncs keep the resync away. Once every volume has
 *   been mounted, the worker (`pod:<uid>`) is told so by `pod.volumes.changed` with an empty list of
 *   unmounted volumes — at once when they already were, else when the last one mounts (every
 *   answer lists what is still unmounted, for the worker's timeout error). A volume with no plugin never mounts: its error is kept and
 *   reported, and the worker's wait runs out as Go's does.
 * - Each failed set-up is emitted as `volume.mount.failed` (the composition root records Go's
 *   FailedMount Warning event: "MountVolume.SetUp failed for volume …"). A claim the set-up could
 *   not process (not bound, its PV not the claim's; the populator's errors) is no SetUp event: a
 *   waiting worker is told at once (`failedToProcess`) and fails its sync with Go's
 *   "Unable to attach or mount volumes: … failed to process volumes=[…]: …".
 * - `volumes.pod.release` (the pod is terminal, or its worker is done): every volume of the pod is
 *   torn down; with `removeDirectory` (the pod is gone) the pod's directory is then removed by the
 *   `removePodDirectory` effect, which refuses to delete through anything still mounted.
 * - At start the `reconstructVolumes` effect reads the CSI volumes left on disk back into the actual
 *   state (Go's reconstructVolumes; the node reports a PV's in `volumesInUse` from then on).
 * - `volumes.pods.known` (every pod source seen; Go's housekeeping cleanupOrphanedPodDirs), once
 *   that scan answered: the reconstructed volumes of pods no one knows are torn down, each by its
 *   `tearDownReconstructedVolume` effect, retried by one that first waits out the volume back-off,
 *   replaced by one that does not on `volumes.driver.registered` for its driver; the pod
 *   directories on disk of pods that are neither given nor known here, nor held by such a volume,
 *   are torn down and removed by the `cleanupOrphanedPodDirectories` effect, and a held one once
 *   its last volume is down.
 * The decisions are the pure functions of domain/volume-manager; `carryOut` turns their commands
 * into spawns, sends, stops and emits, in order. Pure: no I/O, no clock reads.
 */
import { enqueueActions, setup, type AnyActorRef, type AnyEventObject, type EventObject } from 'xstate';
import { effectError } from './done-output.js';
import type { Pod } from '../domain/pod/types.js';
import type { VolumeProcessingError } from '../domain/volumes/pod-volumes.js';
import { actorIdParts, podDirectoryActorId, podWorkerId, volumeActorId } from '../domain/actor-ids.js';
import type { VolumeManagerCommand, VolumeMountFailed, VolumeWaitTimedOut } from '../domain/volume-manager/commands.js';
import { decidePodSync } from '../domain/volume-manager/pod-sync.js';
import { decideDirectoryAnswered, decideRelease } from '../domain/volume-manager/release.js';
import {
  decideDriverRegistered, decideOrphanSweep, decideReconstructed, decideReconstructedAnswered, type ReconstructedVolume,
} from '../domain/volume-manager/reconstruction.js';
import type { VolumeManagerState } from '../domain/volume-manager/state.js';
import { decideVolumeCrashed, decideVolumeMounted, decideVolumeMountFailed, decideVolumeUnmounted, mountFailureKind } from '../domain/volume-manager/volume-reports.js';
import { answeredOutput, effectNotProvided, type EffectAnswered } from './answering-effect.js';
import { subsystemSlot } from './subsystem-slot.js';
import { sendToChild, sendToSystemIfRunning, type SystemLookup } from './system-sends.js';
import type { VolumeInput, VolumeReport } from './volume.machine.js';

export type { PodVolume, PodVolumesEntry, VolumeState } from '../domain/volume-manager/state.js';
export type { VolumeMountFailed, VolumeWaitTimedOut } from '../domain/volume-manager/commands.js';
export type { ReconstructedVolume } from '../domain/volume-manager/reconstruction.js';

export interface VolumeManagerInput {
  /** The per-volume back-off (Go's 500 ms doubling to 2 min 2 s when absent). */
  backoff?: { initialMs: number; maxMs: number };
}

export interface VolumeManagerContext extends VolumeManagerState {
  input: VolumeManagerInput;
}

export type VolumeManagerEvent =
  | { type: 'volumes.pod.sync'; pod: Pod }
  | { type: 'volumes.pod.release'; podUid: string; removeDirectory: boolean }
  | { type: 'volumes.pods.known'; podUids: string[] }
  | { type: 'volumes.pod.waitTimedOut'; podUid: string; message: string }
  /** A CSI driver was registered by the plugin manager: its reconstructed volumes' teardowns are retried now. */
  | { type: 'volumes.driver.registered'; driverName: string }
  | VolumeReport
  | EffectAnswered<PodDirectoryOutcome>
  | EffectAnswered<ReconstructedVolume[]>
  | EffectAnswered<void>;

/** Sent to the pod worker `pod:<uid>`: its volumes not mounted yet, by name (none: it may start its containers). */
export interface PodVolumesChanged {
  type: 'pod.volumes.changed';
  unmounted: string[];
  /** Volumes the populator could not process (a claim not bound yet, say), with why: the worker's sync fails at once with them. */
  failedToProcess?: VolumeProcessingError[];
}

export interface RemovePodDirectoryInput { podUid: string }
/** Every pod directory not in `keep`; with `only`, just those (a pod whose reconstructed volumes are down). */
export interface CleanupOrphanedPodDirectoriesInput { keep: string[]; only?: string[] }
/** A volume found on disk at start, torn down once `delayMs` (the back-off of its last failure) has passed. */
export interface TearDownReconstructedVolumeInput { volume: ReconstructedVolume; delayMs: number }
/**
 * What the directory effects answer. They never reject: a directory that cannot be removed (a mount
 * still under it, say) is named with the reason, and housekeeping's next sweep tries again.
 */
export interface PodDirectoryOutcome { removed: string[]; kept: { podUid: string; reason: string }[] }

export const VOLUME_MANAGER_EFFECTS = ['removePodDirectory', 'cleanupOrphanedPodDirectories', 'reconstructVolumes', 'tearDownReconstructedVolume'] as const;

/** The scan's effect id: one per volume manager. */
export const RECONSTRUCT_VOLUMES_ID = 'reconstructVolumes';

/** What carryOut needs of an action's `enqueue`. */
interface CommandQueue {
  sendTo(to: string | AnyActorRef, event: EventObject): void;
  spawnChild(src: 'volume', options: { id: string; systemId: string; input: VolumeInput }): void;
  spawnChild(src: 'removePodDirectory', options: { id: string; input: RemovePodDirectoryInput }): void;
  spawnChild(src: 'cleanupOrphanedPodDirectories', options: { id: string; input: CleanupOrphanedPodDirectoriesInput }): void;
  spawnChild(src: 'tearDownReconstructedVolume', options: { id: string; input: TearDownReconstructedVolumeInput }): void;
  stopChild(id: string): void;
  emit(event: VolumeMountFailed | VolumeWaitTimedOut): void;
}

/** A decision's commands, in order. */
function carryOut(enqueue: CommandQueue, system: SystemLookup, input: VolumeManagerInput, commands: readonly VolumeManagerCommand[]): void {
  for (const c of commands) {
    switch (c.kind) {
      case 'startVolume': {
        const id = volumeActorId(c.pod.metadata.uid, c.volumeName);
        enqueue.spawnChild('volume', { id, systemId: id, input: { pod: c.pod, volumeName: c.volumeName, plugin: c.plugin, requiresRemount: c.requiresRemount, ...(input.backoff ? { backoff: input.backoff } : {}) } });
        break;
      }
      case 'tellVolume':
        sendToChild(enqueue, volumeActorId(c.podUid, c.volumeName), c.message);
        break;
      case 'tellWorker':
        // The pod's worker may be gone already: a volume set up late for a pod that was deleted meanwhile.
        sendToSystemIfRunning(enqueue, system, podWorkerId(c.podUid), { type: 'pod.volumes.changed', unmounted: c.unmounted, ...(c.failedToProcess ? { failedToProcess: c.failedToProcess } : {}) } satisfies PodVolumesChanged);
        break;
      case 'emit':
        enqueue.emit(c.event);
        break;
      case 'removePodDirectory':
        enqueue.spawnChild('removePodDirectory', { id: podDirectoryActorId(c.podUid), input: { podUid: c.podUid } });
        break;
      case 'sweepOrphanedPodDirectories':
        enqueue.spawnChild('cleanupOrphanedPodDirectories', { id: `cleanupOrphanedPodDirectories:${c.sweep}`, input: { keep: c.keep, ...(c.only ? { only: c.only } : {}) } });
        break;
      case 'tearDownReconstructed':
        enqueue.spawnChild('tearDownReconstructedVolume', { id: c.id, input: { volume: c.volume, delayMs: c.delayMs } });
        break;
      case 'stop':
        enqueue.stopChild(c.id);
        break;
    }
  }
}

/** A decision's whole state into the context (an absent key clears it). */
function assignState(enqueue: { assign(values: Partial<VolumeManagerContext>): void }, state: VolumeManagerState): void {
  enqueue.assign({ pods: state.pods, sweeps: state.sweeps, reconstruction: state.reconstruction, sweepWaiting: state.sweepWaiting });
}

/** The volume an `xstate.error.actor.<id>` event is about, with its error; null for any other actor. */
function crashedVolumeOf(event: AnyEventObject): { id: string; podUid: string; volumeName: string; message: string } | null {
  const prefix = 'xstate.error.actor.';
  if (!event.type.startsWith(prefix)) return null;
  const id = event.type.slice(prefix.length);
  const [podUid, volumeName] = actorIdParts(id, 'volume') ?? [];
  if (podUid === undefined || volumeName === undefined) return null;
  return { id, podUid, volumeName, message: effectError(event).message };
}

export const volumeManagerMachine = setup({
  types: {
    context: {} as VolumeManagerContext,
    events: {} as VolumeManagerEvent,
    input: {} as VolumeManagerInput,
    emitted: {} as VolumeMountFailed | VolumeWaitTimedOut,
  },
  actors: {
    volume: subsystemSlot<VolumeInput>(),
    removePodDirectory: effectNotProvided<PodDirectoryOutcome, RemovePodDirectoryInput>('removePodDirectory'),
    cleanupOrphanedPodDirectories: effectNotProvided<PodDirectoryOutcome, CleanupOrphanedPodDirectoriesInput>('cleanupOrphanedPodDirectories'),
    reconstructVolumes: effectNotProvided<ReconstructedVolume[], void>('reconstructVolumes'),
    tearDownReconstructedVolume: effectNotProvided<void, TearDownReconstructedVolumeInput>('tearDownReconstructedVolume'),
  },
  actions: {
    /** The volume a crashed actor set up is failed (see decideVolumeCrashed). */
    failCrashedVolume: enqueueActions(({ context, event, enqueue, system }) => {
      const crashed = crashedVolumeOf(event);
      if (!crashed) return;
      const { state, commands } = decideVolumeCrashed(context, crashed);
      carryOut(enqueue, system, context.input, commands);
      assignState(enqueue, state);
    }),
  },
}).createMachine({
  id: 'volumeManager',
  context: ({ input }) => ({ input, pods: {}, sweeps: 0 }),
  initial: 'running',
  states: {
    running: {
      meta: { description: 'the populator and reconciler: volumes set up as pods sync, torn down as they end' },
      entry: enqueueActions(({ enqueue }) => enqueue.spawnChild('reconstructVolumes', { id: RECONSTRUCT_VOLUMES_ID })),
    },
  },
  on: {
    'volumes.pod.sync': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decidePodSync(context, event.pod);
        assignState(enqueue, state);
        carryOut(enqueue, system, context.input, commands);
      }),
    },
    'volumes.pod.waitTimedOut': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const entry = context.pods[event.podUid];
        if (entry) enqueue.emit({ type: 'volume.wait.timedOut', pod: entry.pod, message: event.message });
      }),
    },
    'volume.mounted': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideVolumeMounted(context, event);
        carryOut(enqueue, system, context.input, commands);
        assignState(enqueue, state);
      }),
    },
    'volume.mount.failed': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideVolumeMountFailed(context, event.podUid, event.volumeName, event.error.message, mountFailureKind(event.error.code));
        carryOut(enqueue, system, context.input, commands);
        assignState(enqueue, state);
      }),
    },
    'volumes.pod.release': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideRelease(context, event.podUid, event.removeDirectory);
        carryOut(enqueue, system, context.input, commands);
        assignState(enqueue, state);
      }),
    },
    'volumes.pods.known': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideOrphanSweep(context, event.podUids);
        assignState(enqueue, state);
        carryOut(enqueue, system, context.input, commands);
      }),
    },
    'volumes.driver.registered': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideDriverRegistered(context, event.driverName);
        assignState(enqueue, state);
        carryOut(enqueue, system, context.input, commands);
      }),
    },
    // A volume actor that threw: typed loosely, as the children that may throw are spawned and their error events carry ids xstate cannot list.
    ...({ 'xstate.error.actor.*': { guard: ({ event }: { event: AnyEventObject }) => crashedVolumeOf(event) !== null, actions: 'failCrashedVolume' } } as object),
    'volume.unmounted': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideVolumeUnmounted(context, event.podUid, event.volumeName, volumeActorId(event.podUid, event.volumeName));
        carryOut(enqueue, system, context.input, commands);
        assignState(enqueue, state);
      }),
    },
    // The scan, a reconstructed volume's teardown, a pod directory removed or an orphan sweep
    // answered: the effect is stopped (see answering-effect.ts).
    'effect.answered': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = event.id === RECONSTRUCT_VOLUMES_ID
          // A scan that failed found nothing to reconstruct (Go logs it and goes on).
          ? decideReconstructed(context, answeredOutput(event as EffectAnswered<ReconstructedVolume[]>) ?? [], event.id)
          : actorIdParts(event.id, 'reconstructedVolume')
            ? decideReconstructedAnswered(context, event.id, 'error' in event ? event.error.message : undefined, context.input.backoff)
            : decideDirectoryAnswered(context, event.id, actorIdParts(event.id, 'podDirectory')?.[0]);
        assignState(enqueue, state);
        carryOut(enqueue, system, context.input, commands);
      }),
    },
  },
});
