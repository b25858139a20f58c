/**
 * One registered device plugin, for one extended resource (Go: pkg/kubelet/cm/devicemanager/plugin/
 * v1beta1 client.go Run and the manager's endpoint with its stop time).
 *
 * States:
 * - `streaming`: `listAndWatch` holds the plugin's ListAndWatch stream; each answer comes as its
 *   changes from the stream's previous answer (device-list-changes.ts), the first as the changes
 *   from no device, and goes to the device manager as `device.plugin.changed`, the first marked so:
 *   it replaces the devices the resource had (a previous endpoint's). The stream ending, for any
 *   reason (the plugin stopped, its socket went away, an error) → `stopped`, and the device manager
 *   is told `device.plugin.disconnected` at once (its devices become unhealthy).
 * - `stopped`: Go's endpoint with a stop time: the resource stays, with no healthy device, for the
 *   grace period (endpointStopGracePeriod); then `device.plugin.expired` and `expired`, where the
 *   device manager stops this actor. A plugin that registers again meanwhile gets a new actor.
 * A resource known only from the checkpoint after a restart starts in `stopped` (Go's
 * newStoppedEndpointImpl). Pure: no I/O, no clock reads; the grace period runs on the injected clock.
 */
import { assign, enqueueActions, fromCallback, setup } from 'xstate';
import { ENDPOINT_STOP_GRACE_PERIOD_MS } from '../domain/device-manager/device-plugin-api.js';
import type { DeviceListChanges } from '../domain/device-manager/device-list-changes.js';
import type { SerializedError } from '../domain/errors.js';

export interface DevicePluginInput {
  resourceName: string;
  /** The plugin's socket; null: known from the checkpoint only, waiting for the plugin to register again. */
  socketPath: string | null;
  gracePeriodMs?: number;
}

export interface ListAndWatchInput { resourceName: string; socketPath: string }

/**
 * What the ListAndWatch effect sends back: each answer that differs from the stream's previous one,
 * as its changes (the first answer always, as its changes from no device).
 */
export type ListAndWatchEvent =
  | ({ type: 'device.plugin.devices.changed' } & DeviceListChanges)
  | { type: 'device.plugin.stream.ended'; error: SerializedError | null };

export type DevicePluginEvent = ListAndWatchEvent;

/** To the device manager (the parent), each naming this actor so a replaced plugin's late news is ignored. */
export type DevicePluginReport =
  /** first: the stream's first answer, whose changes start from no device (what the resource had goes). */
  | ({ type: 'device.plugin.changed'; resourceName: string; pluginId: string; first: boolean } & DeviceListChanges)
  | { type: 'device.plugin.disconnected'; resourceName: string; pluginId: string }
  | { type: 'device.plugin.expired'; resourceName: string; pluginId: string };

export interface DevicePluginContext {
  resourceName: string;
  socketPath: string | null;
  gracePeriodMs: number;
  /** The stream has answered: its next changes build on its previous answer. */
  listed: boolean;
  lastError: SerializedError | null;
}

export const DEVICE_PLUGIN_EFFECTS = ['listAndWatch'] as const;

export const devicePluginMachine = setup({
  types: {
    context: {} as DevicePluginContext,
    events: {} as DevicePluginEvent,
    input: {} as DevicePluginInput,
  },
  actors: {
    listAndWatch: fromCallback<ListAndWatchEvent, ListAndWatchInput>(() => {
      throw new Error('actor listAndWatch was not provided');
    }),
  },
  guards: {
    hasSocket: ({ context }) => context.socketPath !== null,
  },
  delays: {
    gracePeriod: ({ context }) => context.gracePeriodMs,
  },
}).createMachine({
  id: 'devicePlugin',
  context: ({ input }) => ({
    resourceName: input.resourceName,
    socketPath: input.socketPath,
    gracePeriodMs: input.gracePeriodMs ?? ENDPOINT_STOP_GRACE_PERIOD_MS,
    listed: false,
    lastError: null,
  }),
  initial: 'deciding',
  states: {
    deciding: {
      always: [{ guard: 'hasSocket', target: 'streaming' }, { target: 'stopped' }],
    },
    streaming: {
      meta: { description: 'ListAndWatch: each answer comes as its changes from the previous one, the first from no device' },
      // A new stream starts from no device, as the effect's does: the two start and end together.
      entry: assign({ listed: false }),
      invoke: {
        id: 'listAndWatch',
        src: 'listAndWatch',
        input: ({ context }) => ({ resourceName: context.resourceName, socketPath: context.socketPath! }),
      },
      on: {
        'device.plugin.devices.changed': {
          actions: enqueueActions(({ context, event, enqueue, self }) => {
            const { upserted, removed } = event;
            enqueue.sendParent({ type: 'device.plugin.changed', resourceName: context.resourceName, pluginId: self.id, first: !context.listed, upserted, removed } satisfies DevicePluginReport);
            enqueue.assign({ listed: true });
          }),
        },
        'device.plugin.stream.ended': {
          target: 'stopped',
          actions: enqueueActions(({ context, event, enqueue, self }) => {
            enqueue.assign({ lastError: event.error });
            enqueue.sendParent({ type: 'device.plugin.disconnected', resourceName: context.resourceName, pluginId: self.id } satisfies DevicePluginReport);
          }),
        },
      },
    },
    stopped: {
      meta: { description: 'the stream ended: the devices are unhealthy; the resource goes after the grace period' },
      after: {
        gracePeriod: {
          target: 'expired',
          actions: enqueueActions(({ context, enqueue, self }) => {
            enqueue.sendParent({ type: 'device.plugin.expired', resourceName: context.resourceName, pluginId: self.id } satisfies DevicePluginReport);
          }),
        },
      },
    },
    expired: {
      meta: { description: 'the resource is gone from the node: the device manager stops this actor' },
    },
  },
});
