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
 *   FailedMount Warning event: "MountVolume.SetUp failed for volume …").
 * - `volumes.pod.release` (the pod is terminal, or its worker is done): every volume of the pod is
 *   torn down; with `removeDirectory` (the pod is gone) the pod's directory is then removed by the
 *   `removePodDirectory` effect, which refuses to delete through anything still mounted.
 * - `volumes.pods.known` (every pod source seen; Go's housekeeping cleanupOrphanedPodDirs): pod
 *   directories on disk of pods that are neither given nor known here are torn down and removed
 *   by the `cleanupOrphanedPodDirectories` effect.
 * Pure: no I/O, no clock reads.
 */
import { enqueueActions, setup, type AnyEventObject } from 'xstate';
import { effectError } from './done-output.js';
import type { Pod } from '../domain/pod/types.js';
import { actorIdParts, podDirectoryActorId, podWorkerId, volumeActorId } from '../domain/actor-ids.js';
import { mountedVolumes, requiresRemount, volumePluginName, volumeSourceName } from '../domain/volumes/pod-volumes.js';
import { effectNotProvided, type EffectAnswered } from './answering-effect.js';
import { subsystemSlot } from './subsystem-slot.js';
import { sendToChild, sendToSystemIfRunning, type SystemLookup, type SystemSendQueue } from './system-sends.js';
import type { VolumeInput, VolumeReport } from './volume.machine.js';

export interface VolumeManagerInput {
  /** The per-volume back-off (Go's 500 ms doubling to 2 min 2 s when absent). */
  backoff?: { initialMs: number; maxMs: number };
}

export type VolumeState = 'mounting' | 'mounted' | 'unmounting' | 'unsupported';

export interface PodVolumesEntry {
  pod: { namespace: string; name: string; uid: string };
  volumes: Record<string, { state: VolumeState; error: string | null }>;
  /** A worker waits for `pod.volumes.mounted`. */
  waiting: boolean;
  releasing: boolean;
  removeDirectory: boolean;
}

export interface VolumeManagerContext {
  input: VolumeManagerInput;
  pods: Record<string, PodVolumesEntry>;
  /** Orphan sweeps started (each effect gets its own id). */
  sweeps: number;
}

export type VolumeManagerEvent =
  | { type: 'volumes.pod.sync'; pod: Pod }
  | { type: 'volumes.pod.release'; podUid: string; removeDirectory: boolean }
  | { type: 'volumes.pods.known'; podUids: string[] }
  | { type: 'volumes.pod.waitTimedOut'; podUid: string; message: string }
  | VolumeReport
  | EffectAnswered<PodDirectoryOutcome>;

/** Emitted for each failed set-up: what Go's operation executor records as a FailedMount event. */
export interface VolumeMountFailed {
  type: 'volume.mount.failed';
  pod: { namespace: string; name: string; uid: string };
  volumeName: string;
  message: string;
}

/** Emitted when a pod's wait for its volumes ran out: Go's "Unable to attach or mount volumes: …" FailedMount event. */
export interface VolumeWaitTimedOut {
  type: 'volume.wait.timedOut';
  pod: { namespace: string; name: string; uid: string };
  message: string;
}

/** Sent to the pod worker `pod:<uid>`: its volumes not mounted yet, by name (none: it may start its containers). */
export interface PodVolumesChanged { type: 'pod.volumes.changed'; unmounted: string[] }

export interface RemovePodDirectoryInput { podUid: string }
export interface CleanupOrphanedPodDirectoriesInput { keep: string[] }
/**
 * What the directory effects answer. They never reject: a directory that cannot be removed (a mount
 * still under it, say) is named with the reason, and housekeeping's next sweep tries again.
 */
export interface PodDirectoryOutcome { removed: string[]; kept: { podUid: string; reason: string }[] }

export const VOLUME_MANAGER_EFFECTS = ['removePodDirectory', 'cleanupOrphanedPodDirectories'] as const;


/** Go's message for a volume no plugin can mount (the operation generator's). */
function noPluginMessage(volumeName: string, source: string): string {
  return `failed to get Plugin from volumeSpec for volume "${volumeName}" err=no volume plugin matched (source "${source}")`;
}

function duplicateVolumeMessage(volumeName: string): string {
  return `the pod has more than one volume named "${volumeName}": none of them is mounted`;
}

function unmountedOf(entry: PodVolumesEntry): string[] {
  return Object.entries(entry.volumes).filter(([, v]) => v.state !== 'mounted').map(([name]) => name).sort();
}

/** The pod's worker may be gone already: a volume set up late for a pod that was deleted meanwhile. */
function tellWorker(enqueue: SystemSendQueue, system: SystemLookup, uid: string, entry: PodVolumesEntry): void {
  sendToSystemIfRunning(enqueue, system, podWorkerId(uid), { type: 'pod.volumes.changed', unmounted: unmountedOf(entry) } satisfies PodVolumesChanged);
}

function podRefOf(pod: Pod) {
  return { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid };
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
  },
}).createMachine({
  id: 'volumeManager',
  context: ({ input }) => ({ input, pods: {}, sweeps: 0 }),
  initial: 'running',
  states: {
    running: {
      meta: { description: 'the populator and reconciler: volumes set up as pods sync, torn down as they end' },
    },
  },
  on: {
    'volumes.pod.sync': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const pod = event.pod;
        const uid = pod.metadata.uid;
        const known = context.pods[uid];
        if (known?.releasing) return;
        if (known) {
          for (const name of Object.keys(known.volumes)) {
            if (known.volumes[name]?.state !== 'unsupported') sendToChild(enqueue, volumeActorId(uid, name), { type: 'volume.remount', pod });
          }
          const waiting = unmountedOf(known).length > 0;
          if (waiting !== known.waiting) enqueue.assign({ pods: { ...context.pods, [uid]: { ...known, waiting } } });
          tellWorker(enqueue, system, uid, known);
          return;
        }
        const entry: PodVolumesEntry = { pod: podRefOf(pod), volumes: {}, waiting: false, releasing: false, removeDirectory: false };
        const volumes = mountedVolumes(pod);
        const names = volumes.map((v) => v.name);
        for (const volume of volumes) {
          if (names.indexOf(volume.name) !== names.lastIndexOf(volume.name)) {
            // Two volumes of one name (from a source that did not validate) would be two actors of one
            // id and one directory: neither is mounted, and the pod is told why.
            if (entry.volumes[volume.name] !== undefined) continue;
            const message = duplicateVolumeMessage(volume.name);
            entry.volumes[volume.name] = { state: 'unsupported', error: message };
            enqueue.emit({ type: 'volume.mount.failed', pod: entry.pod, volumeName: volume.name, message });
            continue;
          }
          const plugin = volumePluginName(volume);
          if (plugin === undefined) {
            const message = noPluginMessage(volume.name, volumeSourceName(volume));
            entry.volumes[volume.name] = { state: 'unsupported', error: message };
            enqueue.emit({ type: 'volume.mount.failed', pod: entry.pod, volumeName: volume.name, message });
            continue;
          }
          entry.volumes[volume.name] = { state: 'mounting', error: null };
          enqueue.spawnChild('volume', {
            id: volumeActorId(uid, volume.name),
            systemId: volumeActorId(uid, volume.name),
            input: { pod, volumeName: volume.name, plugin, requiresRemount: requiresRemount(plugin), ...(context.input.backoff ? { backoff: context.input.backoff } : {}) },
          });
        }
        entry.waiting = unmountedOf(entry).length > 0;
        enqueue.assign({ pods: { ...context.pods, [uid]: entry } });
        tellWorker(enqueue, system, uid, entry);
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
        const entry = context.pods[event.podUid];
        const volume = entry?.volumes[event.volumeName];
        if (!entry || !volume || volume.state === 'unmounting') return;
        if (volume.state === 'mounted') {
          // A remount that failed before has recovered: its error goes.
          if (volume.error !== null) enqueue.assign({ pods: { ...context.pods, [event.podUid]: { ...entry, volumes: { ...entry.volumes, [event.volumeName]: { state: 'mounted', error: null } } } } });
          return;
        }
        const next: PodVolumesEntry = { ...entry, volumes: { ...entry.volumes, [event.volumeName]: { state: 'mounted', error: null } } };
        if (next.waiting) {
          next.waiting = unmountedOf(next).length > 0;
          tellWorker(enqueue, system, event.podUid, next);
        }
        enqueue.assign({ pods: { ...context.pods, [event.podUid]: next } });
      }),
    },
    'volume.mount.failed': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const entry = context.pods[event.podUid];
        const volume = entry?.volumes[event.volumeName];
        if (!entry || !volume) return;
        enqueue.emit({ type: 'volume.mount.failed', pod: entry.pod, volumeName: event.volumeName, message: event.error.message });
        enqueue.assign({ pods: { ...context.pods, [event.podUid]: { ...entry, volumes: { ...entry.volumes, [event.volumeName]: { ...volume, error: event.error.message } } } } });
      }),
    },
    'volumes.pod.release': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const uid = event.podUid;
        const entry = context.pods[uid];
        if (!entry) {
          if (event.removeDirectory) enqueue.spawnChild('removePodDirectory', { id: podDirectoryActorId(uid), input: { podUid: uid } });
          return;
        }
        if (entry.releasing) {
          if (!event.removeDirectory || entry.removeDirectory) return;
          const next = { ...entry, removeDirectory: true };
          enqueue.assign({ pods: { ...context.pods, [uid]: next } });
          // Already torn down (a terminal pod now deleted): only its directory is left to remove.
          if (Object.keys(next.volumes).length === 0) finishRelease(enqueue, context.pods, uid, next);
          return;
        }
        const volumes: PodVolumesEntry['volumes'] = {};
        for (const [name, v] of Object.entries(entry.volumes)) {
          if (v.state === 'unsupported') continue;
          volumes[name] = { ...v, state: 'unmounting' };
          sendToChild(enqueue, volumeActorId(uid, name), { type: 'volume.unmount' });
        }
        const next = { ...entry, volumes, waiting: false, releasing: true, removeDirectory: event.removeDirectory };
        enqueue.assign({ pods: { ...context.pods, [uid]: next } });
        if (Object.keys(volumes).length === 0) finishRelease(enqueue, context.pods, uid, next);
      }),
    },
    'volumes.pods.known': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        enqueue.assign({ sweeps: context.sweeps + 1 });
        enqueue.spawnChild('cleanupOrphanedPodDirectories', {
          id: `cleanupOrphanedPodDirectories:${context.sweeps}`,
          input: { keep: [...new Set([...event.podUids, ...Object.keys(context.pods)])].sort() },
        });
      }),
    },
    // A volume actor that threw (a kubelet bug met with one volume's data): that volume is failed and
    // reported, the pod's wait runs out as for a volume that never mounts, and the kubelet goes on.
    ...({
      'xstate.error.actor.*': {
        guard: ({ event }: { event: AnyEventObject }) => crashedVolumeOf(event) !== null,
        actions: enqueueActions(({ context, event, enqueue }: { context: VolumeManagerContext; event: AnyEventObject; enqueue: VolumeManagerEnqueue }) => {
          const crashed = crashedVolumeOf(event);
          if (!crashed) return;
          enqueue.stopChild(crashed.id);
          const entry = context.pods[crashed.podUid];
          if (!entry || entry.volumes[crashed.volumeName] === undefined) return;
          const message = `the kubelet failed to set up volume "${crashed.volumeName}": ${crashed.message}`;
          enqueue.emit({ type: 'volume.mount.failed', pod: entry.pod, volumeName: crashed.volumeName, message });
          const volumes = { ...entry.volumes, [crashed.volumeName]: { state: 'unsupported' as const, error: message } };
          const next = { ...entry, volumes };
          const pods = { ...context.pods, [crashed.podUid]: next };
          enqueue.assign({ pods });
          // A pod being released waited for this volume's `volume.unmounted`, which will not come.
          if (next.releasing && Object.values(volumes).every((v) => v.state === 'unsupported')) finishRelease(enqueue, pods, crashed.podUid, { ...next, volumes: {} });
        }),
      },
    } as object),
    // A volume torn down: its machine is stopped (it does not end by itself) and the pod forgets it.
    'volume.unmounted': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        enqueue.stopChild(volumeActorId(event.podUid, event.volumeName));
        const entry = context.pods[event.podUid];
        if (!entry) return;
        const { [event.volumeName]: _done, ...volumes } = entry.volumes;
        const next = { ...entry, volumes };
        const pods = { ...context.pods, [event.podUid]: next };
        enqueue.assign({ pods });
        if (Object.keys(volumes).length === 0) finishRelease(enqueue, pods, event.podUid, next);
      }),
    },
    // A pod directory removed, or an orphan sweep done: the effect is stopped (see answering-effect.ts).
    'effect.answered': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        enqueue.stopChild(event.id);
        const uid = actorIdParts(event.id, 'podDirectory')?.[0];
        if (uid === undefined || !context.pods[uid]?.releasing) return;
        const { [uid]: _gone, ...pods } = context.pods;
        enqueue.assign({ pods });
      }),
    },
  },
});

type VolumeManagerEnqueue = {
  assign: (v: Partial<VolumeManagerContext>) => void;
  emit: (e: VolumeMountFailed) => void;
  stopChild: (id: string) => void;
  spawnChild: (src: 'removePodDirectory', opts: { id: string; input: RemovePodDirectoryInput }) => void;
};

/** The volume an `xstate.error.actor.<id>` event is about, with its error; null for any other actor. */
function crashedVolumeOf(event: AnyEventObject): { id: string; podUid: string; volumeName: string; message: string } | null {
  const prefix = 'xstate.error.actor.';
  if (!event.type.startsWith(prefix)) return null;
  const id = event.type.slice(prefix.length);
  const [podUid, volumeName] = actorIdParts(id, 'volume') ?? [];
  if (podUid === undefined || volumeName === undefined) return null;
  return { id, podUid, volumeName, message: effectError(event).message };
}

/** Every volume of a released pod is down: forget it, or first remove its directory. */
function finishRelease(
  enqueue: { assign: (v: Partial<VolumeManagerContext>) => void; spawnChild: (src: 'removePodDirectory', opts: { id: string; input: RemovePodDirectoryInput }) => void },
  pods: Record<string, PodVolumesEntry>,
  uid: string,
  entry: PodVolumesEntry,
): void {
  if (entry.removeDirectory) {
    enqueue.spawnChild('removePodDirectory', { id: podDirectoryActorId(uid), input: { podUid: uid } });
    return;
  }
  // Unmounted but kept (a terminal pod not yet deleted): its entry stays, releasing, so a late sync does not mount again.
  enqueue.assign({ pods: { ...pods, [uid]: entry } });
}
