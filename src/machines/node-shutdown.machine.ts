/**
 * The node shutdown manager (Go: pkg/kubelet/nodeshutdown, managerImpl on Linux): with a graceful
 * shutdown configured, it holds a logind delay lock, and when logind signals PrepareForShutdown it
 * stops the pods, lowest priority class first, before letting the machine go down.
 *
 * Contract:
 * - It waits for the runtime machine's `runtime.up`: Go starts it in
 *   initializeRuntimeDependentModules. Then `watchShutdown` (invoked from then on) does Go's start(): connect to the system
 *   bus, raise logind's InhibitDelayMaxUSec to the requested period when it is shorter (the drop-in
 *   and a reload), take the delay lock and watch PrepareForShutdown. It answers
 *   `shutdown.watch.started` or, when that first start fails (no bus, no logind), once
 *   `shutdown.watch.failed`: the effect logs it and the kubelet goes on without graceful shutdown,
 *   as Go's kubelet does. Each signal comes as `shutdown.prepare.signalled`. It takes the commands
 *   `shutdown.lock.release` and `shutdown.lock.acquire`.
 * - PrepareForShutdown(true): `node.shutdown.changed` goes to `nodeStatus` (Ready turns False with
 *   Go's "node is shutting down", reported at once) and to `syncLoop` (new pods are refused); a
 *   NodeShutdown event is emitted. Then `listShutdownPods` gives the active pods, the pure
 *   groupByPriority sorts them into the classes, and each class in turn has its pods killed through
 *   the syncLoop (`pod.evict.requested`, requester `nodeShutdown`: status Failed, reason Terminated,
 *   Go's message, the DisruptionTarget condition), each with its grace share, waiting for
 *   `pod.eviction.finished` of every one or the class's grace period, whichever comes first; empty
 *   classes are skipped. Then the lock is released and the machine waits in `shutDown`.
 * - PrepareForShutdown(false), a cancelled shutdown: the node is no longer shutting down and the
 *   lock is taken again. Go handles the signals one after the other, so one that arrives while pods
 *   are being stopped is handled after the release.
 * Pure: the classes come on the input, the pods from the effect, periods run on the injected clock.
 */
import { assign, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import type { SerializedError } from '../domain/errors.js';
import { disruptionTargetCondition } from '../domain/eviction/messages.js';
import { groupByPriority, NODE_SHUTDOWN_MESSAGE, NODE_SHUTDOWN_REASON, periodRequestedSeconds, type ShutdownClass, type ShutdownGroup, type ShutdownPod } from '../domain/node-shutdown/shutdown-groups.js';
import { doneOutput } from './done-output.js';
import { sendToSystemIfRunning } from './system-sends.js';

export interface NodeShutdownInput {
  nodeName: string;
  /** The grace period classes, lowest priority first (never empty: no classes, no manager). */
  classes: ShutdownClass[];
}

export interface WatchShutdownInput {
  /** Go's periodRequested: the sum of the classes' periods. */
  periodRequestedMs: number;
}

/** Commands to the watchShutdown effect. */
export type WatchShutdownCommand = { type: 'shutdown.lock.release' } | { type: 'shutdown.lock.acquire' };

export type NodeShutdownEvent =
  | { type: 'runtime.up' }
  | { type: 'shutdown.watch.started'; inhibitDelayMs: number }
  | { type: 'shutdown.watch.failed'; error: SerializedError }
  | { type: 'shutdown.prepare.signalled'; shuttingDown: boolean }
  /** From the syncLoop: a pod this manager asked to kill is done (or was not active). */
  | { type: 'pod.eviction.finished'; podUid: string; evicted: boolean };

/** Sent to nodeStatus and the syncLoop. */
export interface NodeShutdownChangedEvent { type: 'node.shutdown.changed'; shuttingDown: boolean }

/** Emitted for the event recorder: Go's NodeShutdown Normal event on the node. */
export interface NodeShutdownEmitted { type: 'node.shutdown.detected'; nodeName: string; message: string }

export interface NodeShutdownContext {
  nodeName: string;
  classes: ShutdownClass[];
  shuttingDown: boolean;
  groups: ShutdownGroup[];
  /** The class being stopped. */
  groupIndex: number;
  /** Its pods not yet done. */
  waitingFor: string[];
  /** A cancellation that came while pods were being stopped, handled after the release. */
  cancelPending: boolean;
}

export const NODE_SHUTDOWN_EFFECTS = ['watchShutdown', 'listShutdownPods'] as const;

const currentGroup = (c: NodeShutdownContext): ShutdownGroup | undefined => c.groups[c.groupIndex];
/** The next class with pods at or after `from`, or the number of classes when there is none. */
const nextNonEmpty = (groups: readonly ShutdownGroup[], from: number): number => {
  let i = from;
  while (i < groups.length && (groups[i] as ShutdownGroup).pods.length === 0) i++;
  return i;
};

export const nodeShutdownMachine = setup({
  types: {
    context: {} as NodeShutdownContext,
    events: {} as NodeShutdownEvent,
    input: {} as NodeShutdownInput,
    emitted: {} as NodeShutdownEmitted,
  },
  actors: {
    watchShutdown: fromCallback<WatchShutdownCommand, WatchShutdownInput>(() => {
      throw new Error('actor watchShutdown was not provided');
    }),
    listShutdownPods: fromPromise<ShutdownPod[], Record<string, never>>(async () => {
      throw new Error('actor listShutdownPods was not provided');
    }),
  },
  delays: {
    groupGracePeriod: ({ context }) => (currentGroup(context)?.gracePeriodSeconds ?? 0) * 1000,
  },
  guards: {
    isShuttingDown: ({ event }) => event.type === 'shutdown.prepare.signalled' && event.shuttingDown,
    isCancel: ({ event }) => event.type === 'shutdown.prepare.signalled' && !event.shuttingDown,
    hasGroupLeft: ({ context }) => context.groupIndex < context.groups.length,
    isGroupDone: ({ context }) => context.waitingFor.length === 0,
    isCancelPending: ({ context }) => context.cancelPending,
  },
  actions: {
    announce: enqueueActions(({ context, enqueue, system }, params: { shuttingDown: boolean }) => {
      enqueue.assign({ shuttingDown: params.shuttingDown, cancelPending: false });
      const changed: NodeShutdownChangedEvent = { type: 'node.shutdown.changed', shuttingDown: params.shuttingDown };
      // nodeStatus runs in cluster mode only; the syncLoop is stopped before this manager.
      for (const id of ['nodeStatus', 'syncLoop'] as const) sendToSystemIfRunning(enqueue, system, id, changed);
      enqueue.emit({
        type: 'node.shutdown.detected',
        nodeName: context.nodeName,
        message: params.shuttingDown ? 'Shutdown manager detected shutdown event' : 'Shutdown manager detected shutdown cancellation',
      });
    }),
    planGroups: assign(({ context, event }) => {
      const groups = groupByPriority(context.classes, doneOutput<ShutdownPod[]>(event));
      return { groups, groupIndex: nextNonEmpty(groups, 0) };
    }),
    killGroup: enqueueActions(({ context, enqueue, system }) => {
      const group = currentGroup(context);
      if (!group) return;
      enqueue.assign({ waitingFor: group.pods.map((p) => p.uid) });
      // The syncLoop is stopped just before this manager: a class started in between waits out its period.
      for (const pod of group.pods) {
        sendToSystemIfRunning(enqueue, system, 'syncLoop', {
          type: 'pod.evict.requested',
          podUid: pod.uid,
          gracePeriodSeconds: pod.gracePeriodSeconds,
          reason: NODE_SHUTDOWN_REASON,
          message: NODE_SHUTDOWN_MESSAGE,
          condition: disruptionTargetCondition(NODE_SHUTDOWN_MESSAGE),
          requester: 'nodeShutdown',
        });
      }
    }),
    recordFinished: assign({
      waitingFor: ({ context, event }) => (event.type === 'pod.eviction.finished' ? context.waitingFor.filter((uid) => uid !== event.podUid) : context.waitingFor),
    }),
    nextGroup: assign(({ context }) => ({ groupIndex: nextNonEmpty(context.groups, context.groupIndex + 1), waitingFor: [] })),
    sendLockCommand: enqueueActions(({ enqueue }, params: { command: WatchShutdownCommand['type'] }) => {
      enqueue.sendTo('watchShutdown', { type: params.command });
    }),
  },
}).createMachine({
  id: 'nodeShutdown',
  context: ({ input }) => ({ nodeName: input.nodeName, classes: input.classes, shuttingDown: false, groups: [], groupIndex: 0, waitingFor: [], cancelPending: false }),
  initial: 'waitingForRuntime',
  states: {
    waitingForRuntime: {
      meta: { description: 'Go starts the shutdown manager with the runtime-dependent modules' },
      on: { 'runtime.up': 'running' },
    },
    running: {
      invoke: {
        id: 'watchShutdown',
        src: 'watchShutdown',
        input: ({ context }) => ({ periodRequestedMs: periodRequestedSeconds(context.classes) * 1000 }),
      },
      initial: 'starting',
      states: {
        starting: {
          meta: { description: 'connecting to logind: delay, lock, PrepareForShutdown' },
          on: {
            'shutdown.watch.started': 'watching',
            'shutdown.watch.failed': 'unavailable',
          },
        },
        unavailable: {
          meta: { description: 'no system bus or no logind at start-up: shutdown will be immediate, as in Go' },
        },
        watching: {
          meta: { description: 'holding the delay lock, waiting for PrepareForShutdown' },
          on: { 'shutdown.prepare.signalled': { guard: 'isShuttingDown', target: 'shuttingDown', actions: { type: 'announce', params: { shuttingDown: true } } } },
        },
        shuttingDown: {
          meta: { description: 'stopping pods class by class, lowest priority first' },
          on: { 'shutdown.prepare.signalled': { guard: 'isCancel', actions: assign({ cancelPending: true }) } },
          initial: 'listing',
          states: {
            listing: {
              invoke: {
                id: 'listShutdownPods',
                src: 'listShutdownPods',
                input: {},
                onDone: { target: 'nextGroup', actions: 'planGroups' },
                onError: { target: 'nextGroup', actions: assign({ groups: [], groupIndex: 0 }) },
              },
            },
            nextGroup: {
              always: [{ guard: 'hasGroupLeft', target: 'killing' }, { target: '#nodeShutdown.running.shutDown' }],
            },
            killing: {
              entry: 'killGroup',
              on: {
                'pod.eviction.finished': { actions: 'recordFinished' },
              },
              always: { guard: 'isGroupDone', target: 'nextGroup', actions: 'nextGroup' },
              // Go: "Shutdown manager pod killing time out"; the next class starts.
              after: { groupGracePeriod: { target: 'nextGroup', actions: 'nextGroup' } },
            },
          },
          exit: { type: 'sendLockCommand', params: { command: 'shutdown.lock.release' } },
        },
        shutDown: {
          meta: { description: 'pods stopped and the lock released: the machine may go down' },
          // A cancelled shutdown: ready again, and the lock taken again.
          always: { guard: 'isCancelPending', target: 'watching', actions: [{ type: 'announce', params: { shuttingDown: false } }, { type: 'sendLockCommand', params: { command: 'shutdown.lock.acquire' } }] },
          on: { 'shutdown.prepare.signalled': { guard: 'isCancel', target: 'watching', actions: [{ type: 'announce', params: { shuttingDown: false } }, { type: 'sendLockCommand', params: { command: 'shutdown.lock.acquire' } }] } },
        },
      },
    },
  },
});
