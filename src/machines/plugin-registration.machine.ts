/**
 * One socket of the plugin registration directory, as Go's plugin manager reconciler drives it
 * (pkg/kubelet/pluginmanager: the operation generator's RegisterPlugin and UnregisterPlugin for one
 * entry of the desired and actual states of world; pkg/volume/csi's RegistrationHandler;
 * pkg/kubelet/cm/dra/plugin's DRAPluginManager).
 *
 * States:
 * - `gettingInfo`: GetInfo on the socket. The pure validatePluginInfo decides: a plugin type
 *   without a handler (CSIPlugin and DRAPlugin have one here), a CSI version other than 1.x or a
 *   DRA plugin naming no DRAPlugin service the kubelet calls is refused → `refusing`; a valid CSI
 *   plugin → `gettingNodeInfo`; a valid DRA plugin → `addingDraPlugin`; a failed call → `retrying`.
 * - `refusing`: NotifyRegistrationStatus(false) with Go's message, then `retrying`.
 * - `gettingNodeInfo`: NodeGetInfo on the driver's endpoint. `installing`: the registry gets the
 *   driver and, in cluster mode, the CSINode and the Node get its entry, annotation and topology
 *   labels; once installed, the volume manager is told (`volumes.driver.registered`), so the
 *   teardowns of its volumes found on disk at start go on at once. A failure of either → `failing` (after `rollingBack` what was installed):
 *   NotifyRegistrationStatus(false), then `retrying`.
 * - `addingDraPlugin`: the DRA plugin into the DRA driver registry (a driver may have several
 *   plugins, each on its own endpoint; an endpoint the driver has already is refused → `failing`).
 * - `notifying`: NotifyRegistrationStatus(true), then `registered` (a failed notify is recorded,
 *   the driver stays registered, as in Go).
 * - `retrying`: GetInfo again at the reconciler's next pass (Go's loop: every 1 s), but not before
 *   the socket's back-off has run out (Go's goroutinemap: 500 ms doubling to 2 min 2 s per failure
 *   in a row).
 * - `deregistering`: the socket was removed or re-created while registered: the driver leaves the
 *   registry, the CSINode and the annotation; retried as above until that succeeds. A
 *   re-created socket is then registered afresh. `removingDraPlugin` does the same for a DRA
 *   plugin: it leaves the DRA driver registry.
 * - `ended`: removed and nothing left registered; the parent is told `plugin.registration.ended`
 *   and stops this actor. Not final (a final state's done event carries the id; see
 *   answering-effect.ts).
 * A removal or re-creation while an operation runs is noted and acted on when it ends (Go keeps one
 * operation per socket in flight). Pure: no I/O, no clock reads; the period comes on the input.
 */
import { and, assign, enqueueActions, fromPromise, setup, type AnyEventObject } from 'xstate';
import type { DriverNodeInfo } from '../domain/csi/csi-node.js';
import { registrationFailedMessage, validatePluginInfo, type PluginInfo, type ValidCsiPlugin } from '../domain/csi/plugin-info.js';
import type { ValidDraPlugin } from '../domain/dra/plugin-services.js';
import type { SerializedError } from '../domain/errors.js';
import { volumeBackoffMs } from '../domain/volumes/pod-volumes.js';
import { doneOutput, effectError } from './done-output.js';
import { sendToSystemIfRunning } from './system-sends.js';

/** Go's reconciler period. */
export const PLUGIN_RECONCILE_PERIOD_MS = 1_000;

/** Cluster mode: the node whose CSINode and Node get the drivers, and the CSINode's migrated plugins. */
export interface CsiNodeTarget { nodeName: string; migratedPlugins: string[] }

export interface PluginRegistrationInput {
  socketPath: string;
  /** null standalone: the driver is registered, no API object is written. */
  csiNode: CsiNodeTarget | null;
  retryPeriodMs?: number;
}

export interface GetPluginInfoInput { socketPath: string }
/** GetInfo's answer, and the highest CSI version of a driver of the same name registered already. */
export interface GetPluginInfoOutput { info: PluginInfo; registeredVersion?: string }
export interface NotifyRegistrationStatusInput { socketPath: string; registered: boolean; error: string }
export interface NodeGetInfoInput { driverName: string; endpoint: string }
export interface InstallCsiDriverInput { plugin: ValidCsiPlugin; nodeInfo: DriverNodeInfo; csiNode: CsiNodeTarget | null }
export interface UninstallCsiDriverInput { driverName: string; csiNode: CsiNodeTarget | null }
export interface AddDraPluginInput { plugin: ValidDraPlugin }
export interface RemoveDraPluginInput { driverName: string; endpoint: string }

export interface PluginRegistrationContext {
  socketPath: string;
  csiNode: CsiNodeTarget | null;
  retryPeriodMs: number;
  info: PluginInfo | null;
  plugin: ValidCsiPlugin | null;
  /** The DRA plugin being registered or registered; null for a CSI plugin. */
  draPlugin: ValidDraPlugin | null;
  nodeInfo: DriverNodeInfo | null;
  /** What the plugin was last told when refused, or why the last operation failed. */
  lastError: SerializedError | null;
  /** Registrations tried and failed in a row. */
  failures: number;
  /** The socket went away while an operation ran. */
  removed: boolean;
  /** The socket was created again while an operation ran or while registered. */
  recreated: boolean;
}

export type PluginRegistrationEvent =
  | { type: 'plugin.socket.created'; socketPath: string }
  | { type: 'plugin.socket.removed'; socketPath: string };

/** Sent to the parent (the plugin manager) once nothing of this socket is registered and it is gone. */
export interface PluginRegistrationEnded { type: 'plugin.registration.ended'; socketPath: string }

export const PLUGIN_REGISTRATION_EFFECTS = ['getPluginInfo', 'notifyRegistrationStatus', 'nodeGetInfo', 'installCsiDriver', 'uninstallCsiDriver', 'addDraPlugin', 'removeDraPlugin'] as const;

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} was not provided`);
};

const refusal = (message: string): SerializedError => ({ code: 'KLT_ERR_PLUGIN_REGISTRATION', message, retryable: true });

const validationOf = (context: PluginRegistrationContext, event: AnyEventObject) => {
  const out = doneOutput<GetPluginInfoOutput>(event);
  return validatePluginInfo(out.info, context.socketPath, out.registeredVersion);
};

const driverNameOf = (context: PluginRegistrationContext): string => context.plugin?.name ?? '';

export const pluginRegistrationMachine = setup({
  types: {
    context: {} as PluginRegistrationContext,
    events: {} as PluginRegistrationEvent,
    input: {} as PluginRegistrationInput,
  },
  actors: {
    getPluginInfo: fromPromise<GetPluginInfoOutput, GetPluginInfoInput>(notProvided('getPluginInfo')),
    notifyRegistrationStatus: fromPromise<void, NotifyRegistrationStatusInput>(notProvided('notifyRegistrationStatus')),
    nodeGetInfo: fromPromise<DriverNodeInfo, NodeGetInfoInput>(notProvided('nodeGetInfo')),
    installCsiDriver: fromPromise<void, InstallCsiDriverInput>(notProvided('installCsiDriver')),
    uninstallCsiDriver: fromPromise<void, UninstallCsiDriverInput>(notProvided('uninstallCsiDriver')),
    addDraPlugin: fromPromise<void, AddDraPluginInput>(notProvided('addDraPlugin')),
    removeDraPlugin: fromPromise<void, RemoveDraPluginInput>(notProvided('removeDraPlugin')),
  },
  actions: {
    recordError: assign({ lastError: ({ event }) => effectError(event) }),
    countFailure: assign({ failures: ({ context }) => context.failures + 1 }),
    clearFlags: assign({ removed: false, recreated: false }),
    /** Deregistered: nothing of the plugin is kept, and its failures start again from none. */
    forgetPlugin: assign({ plugin: null, draPlugin: null, nodeInfo: null, failures: 0 }),
    /** The volume manager, when there is one, retries the teardowns that waited for this driver. */
    tellVolumeManager: enqueueActions(({ context, enqueue, system }) => {
      sendToSystemIfRunning(enqueue, system, 'volumeManager', { type: 'volumes.driver.registered', driverName: driverNameOf(context) });
    }),
    tellParentEnded: enqueueActions(({ context, enqueue }) => {
      enqueue.sendParent({ type: 'plugin.registration.ended', socketPath: context.socketPath } satisfies PluginRegistrationEnded);
    }),
  },
  guards: {
    isRemoved: ({ context }) => context.removed,
    isRecreated: ({ context }) => context.recreated,
    isRemovedOrRecreated: ({ context }) => context.removed || context.recreated,
    isValidCsiPlugin: ({ context, event }) => 'plugin' in validationOf(context, event),
    isValidDraPlugin: ({ context, event }) => 'draPlugin' in validationOf(context, event),
    isDraPlugin: ({ context }) => context.draPlugin !== null,
  },
  delays: {
    // The per-operation back-off Go's plugin operations share with its volume operations.
    retryPeriod: ({ context }) => Math.max(context.retryPeriodMs, volumeBackoffMs(context.failures)),
  },
}).createMachine({
  id: 'pluginRegistration',
  context: ({ input }) => ({
    socketPath: input.socketPath,
    csiNode: input.csiNode,
    retryPeriodMs: input.retryPeriodMs ?? PLUGIN_RECONCILE_PERIOD_MS,
    info: null,
    plugin: null,
    draPlugin: null,
    nodeInfo: null,
    lastError: null,
    failures: 0,
    removed: false,
    recreated: false,
  }),
  // The latest of the two wins: a socket removed then made again is there, and the other way round.
  on: {
    'plugin.socket.removed': { actions: assign({ removed: true, recreated: false }) },
    'plugin.socket.created': { actions: assign({ removed: false, recreated: true }) },
  },
  initial: 'gettingInfo',
  states: {
    gettingInfo: {
      meta: { description: 'GetInfo on the registration socket; the answer is validated (type CSIPlugin, CSI 1.x, name, endpoint)' },
      entry: 'clearFlags',
      invoke: {
        id: 'getPluginInfo',
        src: 'getPluginInfo',
        input: ({ context }) => ({ socketPath: context.socketPath }),
        onDone: [
          { guard: 'isRemoved', target: 'ended' },
          {
            guard: 'isValidCsiPlugin',
            target: 'gettingNodeInfo',
            actions: assign(({ context, event }) => {
              const valid = validationOf(context, event);
              return { info: event.output.info, plugin: 'plugin' in valid ? valid.plugin : null, draPlugin: null };
            }),
          },
          {
            guard: 'isValidDraPlugin',
            target: 'addingDraPlugin',
            actions: assign(({ context, event }) => {
              const valid = validationOf(context, event);
              return { info: event.output.info, plugin: null, draPlugin: 'draPlugin' in valid ? valid.draPlugin : null };
            }),
          },
          {
            target: 'refusing',
            actions: assign(({ context, event }) => {
              const valid = validationOf(context, event);
              return { info: event.output.info, plugin: null, draPlugin: null, lastError: refusal(valid.ok ? '' : valid.message) };
            }),
          },
        ],
        onError: { target: 'retrying', actions: ['recordError', 'countFailure'] },
      },
    },
    refusing: {
      meta: { description: 'NotifyRegistrationStatus(false): the plugin is told why it was refused' },
      invoke: {
        id: 'notifyRegistrationStatus',
        src: 'notifyRegistrationStatus',
        input: ({ context }) => ({ socketPath: context.socketPath, registered: false, error: context.lastError?.message ?? '' }),
        onDone: { target: 'retrying', actions: 'countFailure' },
        onError: { target: 'retrying', actions: 'countFailure' },
      },
    },
    gettingNodeInfo: {
      meta: { description: "NodeGetInfo on the driver's endpoint: its node ID, volume limit and topology" },
      invoke: {
        id: 'nodeGetInfo',
        src: 'nodeGetInfo',
        input: ({ context }) => ({ driverName: driverNameOf(context), endpoint: context.plugin?.endpoint ?? '' }),
        onDone: { target: 'installing', actions: assign({ nodeInfo: ({ event }) => event.output }) },
        onError: { target: 'failing', actions: 'recordError' },
      },
    },
    installing: {
      meta: { description: 'the driver into the registry and, in cluster mode, into the CSINode and onto the Node' },
      invoke: {
        id: 'installCsiDriver',
        src: 'installCsiDriver',
        input: ({ context }) => ({ plugin: context.plugin!, nodeInfo: context.nodeInfo!, csiNode: context.csiNode }),
        onDone: { target: 'notifying', actions: 'tellVolumeManager' },
        onError: { target: 'rollingBack', actions: 'recordError' },
      },
    },
    rollingBack: {
      meta: { description: 'a failed install undone (Go: unregisterDriver)' },
      invoke: {
        id: 'uninstallCsiDriver',
        src: 'uninstallCsiDriver',
        input: ({ context }) => ({ driverName: driverNameOf(context), csiNode: context.csiNode }),
        onDone: { target: 'failing' },
        onError: { target: 'failing' },
      },
    },
    failing: {
      meta: { description: 'NotifyRegistrationStatus(false) with the registration error' },
      invoke: {
        id: 'notifyRegistrationStatus',
        src: 'notifyRegistrationStatus',
        input: ({ context }) => ({ socketPath: context.socketPath, registered: false, error: registrationFailedMessage(context.lastError?.message ?? '') }),
        onDone: { target: 'retrying', actions: 'countFailure' },
        onError: { target: 'retrying', actions: 'countFailure' },
      },
    },
    addingDraPlugin: {
      meta: { description: 'the DRA plugin into the DRA driver registry: its endpoint and the service chosen' },
      invoke: {
        id: 'addDraPlugin',
        src: 'addDraPlugin',
        input: ({ context }) => ({ plugin: context.draPlugin! }),
        onDone: { target: 'notifying' },
        onError: { target: 'failing', actions: ['recordError', assign({ draPlugin: null })] },
      },
    },
    notifying: {
      meta: { description: 'NotifyRegistrationStatus(true)' },
      invoke: {
        id: 'notifyRegistrationStatus',
        src: 'notifyRegistrationStatus',
        input: ({ context }) => ({ socketPath: context.socketPath, registered: true, error: '' }),
        onDone: { target: 'registered', actions: assign({ failures: 0, lastError: null }) },
        onError: { target: 'registered', actions: [assign({ failures: 0 }), 'recordError'] },
      },
    },
    registered: {
      meta: { description: 'the driver is registered; the socket is watched for its removal or re-creation' },
      always: [
        { guard: and(['isRemovedOrRecreated', 'isDraPlugin']), target: 'removingDraPlugin' },
        { guard: 'isRemovedOrRecreated', target: 'deregistering' },
      ],
    },
    removingDraPlugin: {
      meta: { description: 'the DRA plugin out of the DRA driver registry (Go: DeRegisterPlugin)' },
      invoke: {
        id: 'removeDraPlugin',
        src: 'removeDraPlugin',
        input: ({ context }) => ({ driverName: context.draPlugin?.name ?? '', endpoint: context.draPlugin?.endpoint ?? '' }),
        onDone: [
          { guard: 'isRecreated', target: 'gettingInfo', actions: 'forgetPlugin' },
          { target: 'ended', actions: 'forgetPlugin' },
        ],
        onError: { target: 'deregisterBackingOff', actions: ['recordError', 'countFailure'] },
      },
    },
    deregistering: {
      meta: { description: 'the driver out of the registry, the CSINode and the annotation (Go: DeRegisterPlugin)' },
      invoke: {
        id: 'uninstallCsiDriver',
        src: 'uninstallCsiDriver',
        input: ({ context }) => ({ driverName: driverNameOf(context), csiNode: context.csiNode }),
        onDone: [
          { guard: 'isRecreated', target: 'gettingInfo', actions: 'forgetPlugin' },
          { target: 'ended', actions: 'forgetPlugin' },
        ],
        onError: { target: 'deregisterBackingOff', actions: ['recordError', 'countFailure'] },
      },
    },
    deregisterBackingOff: {
      after: { retryPeriod: [{ guard: 'isDraPlugin', target: 'removingDraPlugin' }, { target: 'deregistering' }] },
    },
    retrying: {
      meta: { description: "Go's reconciler: the registration is tried again every period while the socket is there" },
      always: [
        { guard: 'isRemoved', target: 'ended' },
        { guard: 'isRecreated', target: 'gettingInfo' },
      ],
      after: { retryPeriod: 'gettingInfo' },
    },
    ended: {
      meta: { description: 'the socket is gone and nothing of it registered: the plugin manager stops this actor' },
      entry: 'tellParentEnded',
      on: {
        // Created again before the parent stopped this actor: the parent starts a fresh one.
        'plugin.socket.created': {
          actions: enqueueActions(({ event, enqueue }) => {
            enqueue.sendParent({ type: 'plugin.socket.created', socketPath: event.socketPath });
          }),
        },
        'plugin.socket.removed': {},
      },
    },
  },
});
