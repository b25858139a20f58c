/**
 * One volume of one pod, as the volume manager's reconciler drives it (Go: the reconciler's
 * mountOrAttachVolumes / unmountVolumes for one entry of the desired and actual states of world,
 * with nestedpendingoperations' exponential back-off per volume).
 *
 * States:
 * - `mounting`: the `mountVolume` effect sets the volume up (a directory, a tmpfs, the content of
 *   a ConfigMap, Secret, downward API or token written atomically). Done → `mounted`, the parent is
 *   told `volume.mounted`. A failure → `backingOff`, the parent is told `volume.mount.failed`.
 * - `backingOff`: waits 500 ms doubling up to 2 min 2 s (Go's), then mounts again.
 * - `mounted`: set up. A volume whose content comes from the API or the pod (RequiresRemount) is
 *   set up again on every pod sync (`volume.remount`, as Go's ReprocessPod/MarkRemountRequired) and,
 *   for a CSI driver with requiresRepublish, once a set-up's answer says `requiresRemount`;
 *   when its content expires (a service-account token at 80 % of its life), at `refreshAfterMs`.
 * - `remounting`: the same effect, for a mounted volume; a failure keeps the volume mounted (the
 *   container goes on reading the last content, as in Go) and retries after the back-off.
 * - `unmounting`: the `unmountVolume` effect tears it down (unmount, then remove the directory,
 *   never through a mount point still mounted); a failure retries after the back-off. A claim's
 *   volume is torn down as its PV (plugin and name kept from the set-up's answer).
 * - `unmounted`: torn down; the parent is told `volume.unmounted` and stops the machine. Not a
 *   final state: a final one would answer as `xstate.done.actor.volume:<uid>:<name>`, a type per
 *   volume that xstate memoises for good (answering-effect.ts says why that grows).
 * `volume.unmount` is taken in every state: a mount in flight finishes first, then the volume is
 * torn down.
 * Pure: no I/O, no clock reads; every delay is relative and comes from the input or the effect.
 */
import { assertEvent, assign, enqueueActions, fromPromise, setup } from 'xstate';
import type { SerializedError } from '../domain/errors.js';
import type { Pod } from '../domain/pod/types.js';
import { volumeBackoff, volumeBackoffMs, type PersistentVolumeRef, type PodVolumePlugin } from '../domain/volumes/pod-volumes.js';
import { doneOutput, effectError } from './done-output.js';

export interface VolumeInput {
  pod: Pod;
  volumeName: string;
  /** Null for a claim: its PV's plugin comes with the set-up's answer (`persistent`). */
  plugin: PodVolumePlugin;
  /** Set up again on every pod sync (ConfigMap, Secret, downward API, projected); a set-up's answer may turn it on. */
  requiresRemount: boolean;
  backoff?: { initialMs: number; maxMs: number };
}

export interface MountVolumeInput { pod: Pod; volumeName: string; plugin: PodVolumePlugin; remount: boolean }
/** `persistent`: the claim's PV as its last set-up answered (absent for a claim never set up: nothing to tear down). */
export interface UnmountVolumeInput { podUid: string; volumeName: string; plugin: PodVolumePlugin; persistent?: PersistentVolumeRef }

/** What a set-up answers: where the volume is and, for content that expires, when to set it up again. */
export interface MountVolumeOutput {
  hostPath: string;
  /** The content changed on disk (false: a remount found it current). */
  changed: boolean;
  /** Set up again after this long (a token's refresh time, counted from when it was fetched). */
  refreshAfterMs?: number;
  /** The volume is a claim's PV. */
  persistent?: PersistentVolumeRef;
  /** Set up again on every pod sync from now on: the plugin learnt it at set-up (a CSI driver's requiresRepublish). */
  requiresRemount?: boolean;
}

export interface VolumeContext {
  pod: Pod;
  podUid: string;
  volumeName: string;
  plugin: PodVolumePlugin;
  /** A claim's PV, from the last set-up's answer: its teardown needs the PV's plugin and name. */
  persistent: PersistentVolumeRef | null;
  requiresRemount: boolean;
  backoff: { initialMs: number; maxMs: number };
  /** Failed set-ups in a row (the back-off's exponent). */
  failures: number;
  /** Failed tear-downs in a row: a tear-down backs off on its own count, as Go's per-operation back-off. */
  unmountFailures: number;
  /** Set up at least once: the pod may start its containers. */
  everMounted: boolean;
  hostPath: string | null;
  refreshAfterMs: number | null;
  /** A remount was asked for while an operation ran. */
  remountPending: boolean;
  unmountRequested: boolean;
  lastError: SerializedError | null;
  mounts: number;
}

export type VolumeEvent =
  | { type: 'volume.remount'; pod: Pod }
  | { type: 'volume.unmount' };

/** Sent to the parent (the volume manager). */
export type VolumeReport =
  | { type: 'volume.mounted'; podUid: string; volumeName: string; hostPath: string; changed: boolean; persistent?: PersistentVolumeRef }
  | { type: 'volume.mount.failed'; podUid: string; volumeName: string; error: SerializedError; remount: boolean }
  | { type: 'volume.unmounted'; podUid: string; volumeName: string };

export const VOLUME_EFFECTS = ['mountVolume', 'unmountVolume'] as const;

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} was not provided`);
};


/**
 * The set-up both `mounting` and `remounting` invoke: a first set-up and a remount differ only in
 * `remount` (a volume already mounted once keeps its tmpfs and rewrites only changed content).
 */
const setUp = {
  id: 'mountVolume',
  src: 'mountVolume',
  input: ({ context }: { context: VolumeContext }): MountVolumeInput => ({ pod: context.pod, volumeName: context.volumeName, plugin: context.plugin, remount: context.everMounted }),
  onDone: [
    { guard: 'unmountRequested', target: 'unmounting', actions: 'recordMounted' },
    { target: 'mounted', actions: 'recordMounted' },
  ],
  onError: [
    { guard: 'unmountRequested', target: 'unmounting', actions: 'recordMountFailure' },
    { target: 'backingOff', actions: 'recordMountFailure' },
  ],
} as const;

export const volumeMachine = setup({
  types: {
    context: {} as VolumeContext,
    events: {} as VolumeEvent,
    input: {} as VolumeInput,
  },
  actors: {
    mountVolume: fromPromise<MountVolumeOutput, MountVolumeInput>(notProvided('mountVolume')),
    unmountVolume: fromPromise<void, UnmountVolumeInput>(notProvided('unmountVolume')),
  },
  guards: {
    unmountRequested: ({ context }) => context.unmountRequested,
    remountPending: ({ context }) => context.remountPending,
    expires: ({ context }) => context.refreshAfterMs !== null,
    everMounted: ({ context }) => context.everMounted,
  },
  actions: {
    recordMounted: enqueueActions(({ context, event, enqueue }) => {
      const out = doneOutput<MountVolumeOutput>(event);
      enqueue.assign({
        failures: 0,
        everMounted: true,
        hostPath: out.hostPath,
        refreshAfterMs: out.refreshAfterMs ?? null,
        persistent: out.persistent ?? context.persistent,
        // Only ever turned on: the input's answer for API content holds whatever a set-up says.
        requiresRemount: context.requiresRemount || out.requiresRemount === true,
        lastError: null,
        mounts: context.mounts + 1,
      });
      enqueue.sendParent({ type: 'volume.mounted', podUid: context.podUid, volumeName: context.volumeName, hostPath: out.hostPath, changed: out.changed, ...(out.persistent ? { persistent: out.persistent } : {}) } satisfies VolumeReport);
    }),
    recordMountFailure: enqueueActions(({ context, event, enqueue }) => {
      const error = effectError(event);
      enqueue.assign({ failures: context.failures + 1, lastError: error });
      enqueue.sendParent({ type: 'volume.mount.failed', podUid: context.podUid, volumeName: context.volumeName, error, remount: context.everMounted } satisfies VolumeReport);
    }),
    recordUnmountFailure: assign(({ context, event }) => ({ unmountFailures: context.unmountFailures + 1, lastError: effectError(event) })),
    // A volume without API content (emptyDir, hostPath) has nothing to set up again.
    takeRemount: assign(({ context, event }) => {
      assertEvent(event, 'volume.remount');
      return { pod: event.pod, remountPending: context.requiresRemount };
    }),
    startOperation: assign({ remountPending: false }),
    requestUnmount: assign({ unmountRequested: true }),
    reportUnmounted: enqueueActions(({ context, enqueue }) => {
      enqueue.sendParent({ type: 'volume.unmounted', podUid: context.podUid, volumeName: context.volumeName } satisfies VolumeReport);
    }),
  },
  delays: {
    backoff: ({ context }) => volumeBackoffMs(context.failures, context.backoff),
    unmountBackoff: ({ context }) => volumeBackoffMs(context.unmountFailures, context.backoff),
    refresh: ({ context }) => context.refreshAfterMs ?? 0,
  },
}).createMachine({
  id: 'volume',
  context: ({ input }) => ({
    pod: input.pod,
    podUid: input.pod.metadata.uid,
    volumeName: input.volumeName,
    plugin: input.plugin,
    persistent: null,
    requiresRemount: input.requiresRemount,
    backoff: input.backoff ?? volumeBackoff,
    failures: 0,
    unmountFailures: 0,
    everMounted: false,
    hostPath: null,
    refreshAfterMs: null,
    remountPending: false,
    unmountRequested: false,
    lastError: null,
    mounts: 0,
  }),
  initial: 'mounting',
  on: {
    // The latest pod (its downward API fields) is used by the next set-up.
    'volume.remount': { actions: 'takeRemount' },
    'volume.unmount': { actions: 'requestUnmount' },
  },
  states: {
    mounting: {
      meta: { description: 'SetUp: the plugin makes the volume (directory, tmpfs, or content written atomically)' },
      entry: 'startOperation',
      invoke: setUp,
    },
    backingOff: {
      meta: { description: 'the last set-up failed: waits 500 ms doubling to 2 min 2 s' },
      on: { 'volume.unmount': { target: 'unmounting', actions: 'requestUnmount' } },
      after: { backoff: [{ guard: 'everMounted', target: 'remounting' }, { target: 'mounting' }] },
    },
    mounted: {
      meta: { description: 'set up: content from the API or the pod is set up again on each pod resync, a token before it expires' },
      // A remount (taken at the root: the latest pod, pending only for API content) starts at once.
      always: { guard: 'remountPending', target: 'remounting' },
      on: { 'volume.unmount': { target: 'unmounting', actions: 'requestUnmount' } },
      // Only content that expires has a timer (a volume without one would fire and refuse a 0 ms timer).
      initial: 'current',
      states: {
        current: { always: { guard: 'expires', target: 'expiring' } },
        expiring: { after: { refresh: { target: '#volume.remounting' } } },
      },
    },
    remounting: {
      meta: { description: 'SetUp again: the content is rewritten only where it changed; a failure keeps the old content' },
      entry: 'startOperation',
      invoke: setUp,
    },
    unmounting: {
      meta: { description: 'TearDown: unmounts and removes the volume directory (never through a live mount)' },
      invoke: {
        id: 'unmountVolume',
        src: 'unmountVolume',
        input: ({ context }): UnmountVolumeInput => ({ podUid: context.podUid, volumeName: context.volumeName, plugin: context.plugin, ...(context.persistent ? { persistent: context.persistent } : {}) }),
        onDone: { target: 'unmounted' },
        onError: { target: 'unmountBackingOff', actions: 'recordUnmountFailure' },
      },
    },
    unmountBackingOff: {
      meta: { description: 'the tear-down failed: tries again after the back-off' },
      after: { unmountBackoff: { target: 'unmounting' } },
    },
    unmounted: {
      meta: { description: 'torn down: the volume manager stops this machine' },
      entry: 'reportUnmounted',
      // Until it is stopped every event ends here, as in a final state: the root's would take a remount.
      on: { '*': {} },
    },
  },
});
