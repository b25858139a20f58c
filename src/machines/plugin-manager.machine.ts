/**
 * The kubelet's plugin manager for CSI drivers (Go: pkg/kubelet/pluginmanager, started by
 * Kubelet.initializeRuntimeDependentModules; and pkg/volume/csi's initializeCSINode).
 *
 * Two regions:
 * - `csiNode` (cluster mode only): the node's CSINode made (empty, owned by the Node, with the
 *   migrated-plugins annotation) by `initializeCsiNode`, as Go's InitializeCSINodeWithAnnotation at
 *   kubelet start; a failure backs off (Go's 15 ms × 6ⁿ) and tries again, without end: Go exits after
 *   six tries and relies on being restarted, kubelet-ts keeps running.
 * - `watcher`: waits for the runtime's first `runtime.up`, then `watchPluginsDir` watches
 *   `<root-dir>/plugins_registry` (Go's pluginwatcher: the sockets there at start, then each one
 *   created or removed). Each socket gets a `pluginRegistration` child, `plugin:<path under the
 *   directory>`, that registers it, retries and deregisters it (plugin-registration.machine.ts); a
 *   socket event goes to its child, and a child whose socket is gone tells `plugin.registration.ended`
 *   and is stopped. A watch that cannot start leaves the region in `failed`: the kubelet goes on
 *   without plugins, as Go's does.
 * Pure: no I/O, no clock reads; delays run on the injected clock.
 */
import { assign, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import { pluginActorId } from '../domain/actor-ids.js';
import type { SerializedError } from '../domain/errors.js';
import { effectError } from './done-output.js';
import type { CsiNodeTarget, PluginRegistrationEnded, PluginRegistrationInput } from './plugin-registration.machine.js';
import { sendToChild } from './system-sends.js';
import { subsystemSlot } from './subsystem-slot.js';

export interface PluginManagerInput {
  /** `<root-dir>/plugins_registry`. */
  pluginsDir: string;
  /** Cluster mode: the node whose CSINode is made and kept; null standalone. */
  csiNode: CsiNodeTarget | null;
  retryPeriodMs?: number;
}

export interface WatchPluginsDirInput { pluginsDir: string }
export type InitializeCsiNodeInput = CsiNodeTarget;

export interface PluginManagerContext {
  input: PluginManagerInput;
  /** The sockets with a registration child, by path. */
  sockets: string[];
  csiNodeAttempts: number;
  lastError: SerializedError | null;
}

export type PluginManagerEvent =
  | { type: 'runtime.up' }
  | { type: 'plugin.socket.created'; socketPath: string }
  | { type: 'plugin.socket.removed'; socketPath: string }
  | { type: 'plugin.watch.failed'; error: SerializedError }
  | PluginRegistrationEnded;

export const PLUGIN_MANAGER_EFFECTS = ['watchPluginsDir', 'initializeCsiNode'] as const;

/** Go's initBackoff of initializeCSINode (15 ms, factor 6), held at its sixth step. */
export function csiNodeBackoffMs(attempts: number): number {
  return 15 * 6 ** Math.min(Math.max(attempts - 1, 0), 5);
}

export const pluginManagerMachine = setup({
  types: {
    context: {} as PluginManagerContext,
    events: {} as PluginManagerEvent,
    input: {} as PluginManagerInput,
  },
  actors: {
    pluginRegistration: subsystemSlot<PluginRegistrationInput>(),
    watchPluginsDir: fromCallback<PluginManagerEvent, WatchPluginsDirInput>(() => {
      throw new Error('actor watchPluginsDir was not provided');
    }),
    initializeCsiNode: fromPromise<void, InitializeCsiNodeInput>(async () => {
      throw new Error('actor initializeCsiNode was not provided');
    }),
  },
  guards: {
    isClusterMode: ({ context }) => context.input.csiNode !== null,
  },
  delays: {
    csiNodeBackoff: ({ context }) => csiNodeBackoffMs(context.csiNodeAttempts),
  },
}).createMachine({
  id: 'pluginManager',
  type: 'parallel',
  context: ({ input }) => ({ input, sockets: [], csiNodeAttempts: 0, lastError: null }),
  on: {
    'plugin.socket.created': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const id = pluginActorId(context.input.pluginsDir, event.socketPath);
        if (context.sockets.includes(event.socketPath)) {
          sendToChild(enqueue, id, { type: 'plugin.socket.created', socketPath: event.socketPath });
          return;
        }
        const input: PluginRegistrationInput = {
          socketPath: event.socketPath,
          csiNode: context.input.csiNode,
          ...(context.input.retryPeriodMs !== undefined ? { retryPeriodMs: context.input.retryPeriodMs } : {}),
        };
        enqueue.spawnChild('pluginRegistration', { id, systemId: id, input });
        enqueue.assign({ sockets: [...context.sockets, event.socketPath] });
      }),
    },
    'plugin.socket.removed': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        if (!context.sockets.includes(event.socketPath)) return;
        sendToChild(enqueue, pluginActorId(context.input.pluginsDir, event.socketPath), { type: 'plugin.socket.removed', socketPath: event.socketPath });
      }),
    },
    'plugin.registration.ended': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        enqueue.stopChild(pluginActorId(context.input.pluginsDir, event.socketPath));
        enqueue.assign({ sockets: context.sockets.filter((s) => s !== event.socketPath) });
      }),
    },
  },
  states: {
    csiNode: {
      initial: 'deciding',
      states: {
        deciding: {
          always: [{ guard: 'isClusterMode', target: 'initializing' }, { target: 'notNeeded' }],
        },
        notNeeded: {
          meta: { description: 'standalone: no API server, no CSINode' },
        },
        initializing: {
          meta: { description: "the node's CSINode made or its migrated-plugins annotation set (InitializeCSINodeWithAnnotation)" },
          invoke: {
            id: 'initializeCsiNode',
            src: 'initializeCsiNode',
            input: ({ context }) => context.input.csiNode!,
            onDone: { target: 'initialized', actions: assign({ csiNodeAttempts: 0 }) },
            onError: { target: 'backingOff', actions: assign({ csiNodeAttempts: ({ context }) => context.csiNodeAttempts + 1, lastError: ({ event }) => effectError(event) }) },
          },
        },
        backingOff: {
          after: { csiNodeBackoff: 'initializing' },
        },
        initialized: {},
      },
    },
    watcher: {
      initial: 'waitingForRuntime',
      states: {
        waitingForRuntime: {
          meta: { description: 'initializeRuntimeDependentModules starts the plugin manager on the first runtime-up' },
          on: { 'runtime.up': 'watching' },
        },
        watching: {
          meta: { description: 'plugins_registry watched: one pluginRegistration child per socket' },
          invoke: {
            id: 'watchPluginsDir',
            src: 'watchPluginsDir',
            input: ({ context }) => ({ pluginsDir: context.input.pluginsDir }),
          },
          on: { 'plugin.watch.failed': { target: 'failed', actions: assign({ lastError: ({ event }) => event.error }) } },
        },
        failed: {
          meta: { description: 'the watcher could not start: no plugin is registered (Go logs it and goes on)' },
        },
      },
    },
  },
});
