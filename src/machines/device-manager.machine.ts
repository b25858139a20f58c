/**
 * The device manager's plugin side (Go: pkg/kubelet/cm/devicemanager, ManagerImpl with its
 * registration server, plugin/v1beta1/server.go and handler.go), started with the container
 * manager on the runtime's first ready answer (cm.Start → deviceManager.Start).
 *
 * - `serving`: `serveRegistration` serves the Registration service on `kubelet.sock` in the
 *   device-plugins directory (the directory's other sockets removed first, as Go does, so plugins
 *   notice a restart). It checks each Register call (version, resource name: Go's errors), dials
 *   the plugin and asks for its options, then tells `device.plugin.connected`; every call, refused
 *   or not, is told as `device.registration.received` (kubelet_device_plugin_registration_total).
 *   A server that cannot start → `failed`: no plugin can register, the kubelet goes on.
 * - Each connected plugin is a `devicePlugin` child (`devicePlugin:<resource>:<n>`,
 *   device-plugin.machine.ts) holding its ListAndWatch stream; a plugin registering again for the
 *   same resource replaces the previous child (Go keeps the newest). The resources of the
 *   checkpoint a restart read start as children without a socket, waiting for their plugin.
 * - The devices per resource are kept here, each plugin's news applied as the changes it carries
 *   (the first of a stream replacing what the resource had). Every change goes to the syncLoop
 *   (`devices.changed`, what admission allocates from) and to the Registration server's actor
 *   (`device.devices.registered`, whose healthy ids the checkpoint keeps), both as the changes
 *   since the last they were told, so the journal records what changed, not every device again;
 *   and to the node status (`node.devices.changed`: capacity = all devices, allocatable = the
 *   healthy ones; a resource whose plugin stayed away past the grace period reported as 0).
 * Pure: no I/O, no clock reads.
 */
import { assign, enqueueActions, fromCallback, setup } from 'xstate';
import { devicePluginActorId } from '../domain/actor-ids.js';
import { applyDeviceListChanges, deviceInventoryChanges, type DeviceInventoryChanges } from '../domain/device-manager/device-list-changes.js';
import { allUnhealthy, extendedResourceCounts, type DeviceInventoryEntry } from '../domain/device-manager/devices.js';
import type { SerializedError } from '../domain/errors.js';
import type { DevicePluginInput, DevicePluginReport } from './device-plugin.machine.js';
import { sendToSystemIfRunning, type ChildSendQueue, type SystemLookup, type SystemSendQueue } from './system-sends.js';
import { subsystemSlot } from './subsystem-slot.js';

export interface DeviceManagerInput {
  /** The device-plugins directory: kubelet.sock, the plugins' sockets and the checkpoint. */
  dir: string;
  /** The resources the checkpoint registered (a restart): each waits for its plugin, its devices unknown. */
  checkpointResources?: string[];
  gracePeriodMs?: number;
}

export interface ServeRegistrationInput { dir: string }

/** What the Registration server sends in. */
export type RegistrationServerEvent =
  /** A Register call; refusal: the error it was answered with (null: accepted, the plugin is dialled). */
  | { type: 'device.registration.received'; resourceName: string; endpoint: string; refusal: string | null }
  | { type: 'device.plugin.connected'; resourceName: string; socketPath: string }
  | { type: 'device.registration.failed'; error: SerializedError };

/**
 * What the Registration server's actor is told: how the devices changed since it was last told (it
 * starts with none, as this machine's `serving` does), so it knows the healthy ids for the checkpoint.
 */
export interface DevicesRegisteredEvent { type: 'device.devices.registered'; changes: DeviceInventoryChanges }

export type DeviceManagerEvent = { type: 'runtime.up' } | RegistrationServerEvent | DevicePluginReport;

export interface DeviceManagerContext {
  input: DeviceManagerInput;
  /** The devices of each resource, as the newest plugin's stream last listed them. */
  devices: Record<string, DeviceInventoryEntry[]>;
  /** The child serving each resource. */
  plugins: Record<string, string>;
  /** Resources gone past the grace period: reported with 0 from then on. */
  removed: string[];
  /** Children made so far (the next child's id suffix). */
  spawned: number;
  lastError: SerializedError | null;
}

export const DEVICE_MANAGER_EFFECTS = ['serveRegistration'] as const;

type DevicesState = Pick<DeviceManagerContext, 'devices' | 'removed'>;

/** The devices' change from `before` to `after` out: the Node's counts; the syncLoop's and the checkpoint's devices as changes. */
function publish(enqueue: SystemSendQueue & ChildSendQueue, system: SystemLookup, before: DevicesState['devices'], after: DevicesState): void {
  const changes = deviceInventoryChanges(before, after.devices);
  sendToSystemIfRunning(enqueue, system, 'nodeStatus', { type: 'node.devices.changed', resources: extendedResourceCounts(after.devices, after.removed) });
  // No change (no checkpoint at start, a stale endpoint's expiry) is news to neither.
  if (Object.keys(changes).length === 0) return;
  sendToSystemIfRunning(enqueue, system, 'syncLoop', { type: 'devices.changed', changes });
  const registered: DevicesRegisteredEvent = { type: 'device.devices.registered', changes };
  enqueue.sendTo('serveRegistration', registered);
}

const isCurrent = (context: DeviceManagerContext, e: { resourceName: string; pluginId: string }) => context.plugins[e.resourceName] === e.pluginId;

export const deviceManagerMachine = setup({
  types: {
    context: {} as DeviceManagerContext,
    events: {} as DeviceManagerEvent,
    input: {} as DeviceManagerInput,
  },
  actors: {
    devicePlugin: subsystemSlot<DevicePluginInput>(),
    serveRegistration: fromCallback<DevicesRegisteredEvent, ServeRegistrationInput>(() => {
      throw new Error('actor serveRegistration was not provided');
    }),
  },
}).createMachine({
  id: 'deviceManager',
  context: ({ input }) => ({ input, devices: {}, plugins: {}, removed: [], spawned: 0, lastError: null }),
  initial: 'waitingForRuntime',
  states: {
    waitingForRuntime: {
      meta: { description: 'cm.Start starts the device manager on the first runtime-up' },
      on: { 'runtime.up': 'serving' },
    },
    serving: {
      meta: { description: 'kubelet.sock served; one devicePlugin child per registered resource' },
      entry: enqueueActions(({ context, enqueue, system }) => {
        // readCheckpoint: each registered resource waits for its plugin, as a stopped endpoint.
        let spawned = context.spawned;
        const plugins = { ...context.plugins };
        const devices = { ...context.devices };
        for (const resourceName of context.input.checkpointResources ?? []) {
          const id = devicePluginActorId(resourceName, spawned++);
          enqueue.spawnChild('devicePlugin', { id, input: { resourceName, socketPath: null, ...grace(context) } });
          plugins[resourceName] = id;
          devices[resourceName] = [];
        }
        enqueue.assign({ spawned, plugins, devices });
        // The syncLoop and the Registration server's actor (invoked here) know no device yet: the checkpoint's resources are news.
        publish(enqueue, system, {}, { devices, removed: context.removed });
      }),
      invoke: {
        id: 'serveRegistration',
        src: 'serveRegistration',
        input: ({ context }) => ({ dir: context.input.dir }),
      },
      on: {
        'device.registration.received': {},
        'device.plugin.connected': {
          actions: enqueueActions(({ context, event, enqueue, system }) => {
            const previous = context.plugins[event.resourceName];
            if (previous) enqueue.stopChild(previous);
            const id = devicePluginActorId(event.resourceName, context.spawned);
            enqueue.spawnChild('devicePlugin', { id, input: { resourceName: event.resourceName, socketPath: event.socketPath, ...grace(context) } });
            // Go passes the previous endpoint's devices on until the new stream lists its own.
            const devices = { ...context.devices, [event.resourceName]: context.devices[event.resourceName] ?? [] };
            const removed = context.removed.filter((r) => r !== event.resourceName);
            enqueue.assign({ spawned: context.spawned + 1, plugins: { ...context.plugins, [event.resourceName]: id }, devices, removed });
            publish(enqueue, system, context.devices, { devices, removed });
          }),
        },
        'device.plugin.changed': {
          guard: ({ context, event }) => isCurrent(context, event),
          actions: enqueueActions(({ context, event, enqueue, system }) => {
            // A stream's first answer replaces what the resource had, a previous endpoint's devices.
            const held = event.first ? [] : context.devices[event.resourceName] ?? [];
            const devices = { ...context.devices, [event.resourceName]: applyDeviceListChanges(held, event) };
            enqueue.assign({ devices });
            publish(enqueue, system, context.devices, { devices, removed: context.removed });
          }),
        },
        'device.plugin.disconnected': {
          guard: ({ context, event }) => isCurrent(context, event),
          actions: enqueueActions(({ context, event, enqueue, system }) => {
            const devices = { ...context.devices, [event.resourceName]: allUnhealthy(context.devices[event.resourceName] ?? []) };
            enqueue.assign({ devices });
            publish(enqueue, system, context.devices, { devices, removed: context.removed });
          }),
        },
        'device.plugin.expired': {
          actions: enqueueActions(({ context, event, enqueue, system }) => {
            enqueue.stopChild(event.pluginId);
            if (!isCurrent(context, event)) {
              publish(enqueue, system, context.devices, context);
              return;
            }
            const { [event.resourceName]: _gone, ...devices } = context.devices;
            const { [event.resourceName]: _plugin, ...plugins } = context.plugins;
            const removed = [...context.removed.filter((r) => r !== event.resourceName), event.resourceName].sort();
            enqueue.assign({ devices, plugins, removed });
            publish(enqueue, system, context.devices, { devices, removed });
          }),
        },
        'device.registration.failed': { target: 'failed', actions: assign({ lastError: ({ event }) => event.error }) },
      },
    },
    failed: {
      meta: { description: 'kubelet.sock could not be served: no device plugin can register (Go logs it and goes on)' },
    },
  },
});

function grace(context: DeviceManagerContext): { gracePeriodMs?: number } {
  return context.input.gracePeriodMs === undefined ? {} : { gracePeriodMs: context.input.gracePeriodMs };
}
