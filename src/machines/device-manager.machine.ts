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
 * - The devices per resource are kept here; every change goes to the syncLoop (`devices.changed`,
 *   what admission allocates from), to the node status
 *   (`node.devices.changed`: capacity = all devices, allocatable = the healthy ones; a resource
 *   whose plugin stayed away past the grace period reported as 0) and to the Registration server's
 *   actor (`device.devices.registered`, the healthy ids the checkpoint keeps).
 * Pure: no I/O, no clock reads.
 */
import { assign, enqueueActions, fromCallback, setup } from 'xstate';
import { devicePluginActorId } from '../domain/actor-ids.js';
import { allUnhealthy, extendedResourceCounts, type DeviceInventoryEntry } from '../domain/device-manager/devices.js';
import type { SerializedError } from '../domain/errors.js';
import type { DevicePluginInput, DevicePluginReport } from './device-plugin.machine.js';
import { sendToSystemIfRunning } from './system-sends.js';
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

/** What the Registration server's actor is told: the healthy devices per resource, for the checkpoint. */
export interface DevicesRegisteredEvent { type: 'device.devices.registered'; registered: Record<string, string[]> }

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

const healthyIds = (devices: Record<string, DeviceInventoryEntry[]>) =>
  Object.fromEntries(Object.entries(devices).map(([name, list]) => [name, list.filter((d) => d.healthy).map((d) => d.id)]));

/** The device changes out: the Node's counts and the checkpoint's registered devices. */
const publish = enqueueActions<DeviceManagerContext, DeviceManagerEvent, undefined, DeviceManagerEvent, never, never, never, never, never>(({ context, enqueue, system }) => {
  sendToSystemIfRunning(enqueue, system, 'nodeStatus', { type: 'node.devices.changed', resources: extendedResourceCounts(context.devices, context.removed) });
  sendToSystemIfRunning(enqueue, system, 'syncLoop', { type: 'devices.changed', devices: context.devices });
  enqueue.sendTo('serveRegistration', { type: 'device.devices.registered', registered: healthyIds(context.devices) } satisfies DevicesRegisteredEvent);
});

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
      entry: [enqueueActions(({ context, enqueue }) => {
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
      }), publish],
      invoke: {
        id: 'serveRegistration',
        src: 'serveRegistration',
        input: ({ context }) => ({ dir: context.input.dir }),
      },
      on: {
        'device.registration.received': {},
        'device.plugin.connected': {
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              const previous = context.plugins[event.resourceName];
              if (previous) enqueue.stopChild(previous);
              const id = devicePluginActorId(event.resourceName, context.spawned);
              enqueue.spawnChild('devicePlugin', { id, input: { resourceName: event.resourceName, socketPath: event.socketPath, ...grace(context) } });
              enqueue.assign({
                spawned: context.spawned + 1,
                plugins: { ...context.plugins, [event.resourceName]: id },
                // Go passes the previous endpoint's devices on until the new stream lists its own.
                devices: { ...context.devices, [event.resourceName]: context.devices[event.resourceName] ?? [] },
                removed: context.removed.filter((r) => r !== event.resourceName),
              });
            }),
            publish,
          ],
        },
        'device.plugin.listed': {
          guard: ({ context, event }) => isCurrent(context, event),
          actions: [assign({ devices: ({ context, event }) => ({ ...context.devices, [event.resourceName]: event.devices }) }), publish],
        },
        'device.plugin.disconnected': {
          guard: ({ context, event }) => isCurrent(context, event),
          actions: [assign({ devices: ({ context, event }) => ({ ...context.devices, [event.resourceName]: allUnhealthy(context.devices[event.resourceName] ?? []) }) }), publish],
        },
        'device.plugin.expired': {
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              enqueue.stopChild(event.pluginId);
              if (!isCurrent(context, event)) return;
              const { [event.resourceName]: _gone, ...devices } = context.devices;
              const { [event.resourceName]: _plugin, ...plugins } = context.plugins;
              enqueue.assign({ devices, plugins, removed: [...context.removed.filter((r) => r !== event.resourceName), event.resourceName].sort() });
            }),
            publish,
          ],
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
