/**
 * The device manager's effects (device-manager.machine.ts, device-plugin.machine.ts) over the
 * device plugin port:
 * - `serveRegistration`: kubelet.sock served while the device manager serves; each Register call
 *   as `device.registration.received`, each plugin that answered its options as
 *   `device.plugin.connected`; a server that cannot start answers `device.registration.failed`
 *   once. The device changes the machine sends it are applied to the devices it holds (none at
 *   first, as the machine's `serving` starts), whose healthy ids go to the checkpoint.
 * - `listAndWatch`: one plugin's stream, its end as `device.plugin.stream.ended`. Each answer goes
 *   as `device.plugin.devices.changed`, its changes from the stream's previous answer: the first
 *   from no device (sent even when empty, so it replaces what the resource had); one listing the
 *   same devices as the previous is not sent. The previous answer lives as long as the stream, as
 *   the machine's `streaming` state does.
 */
import { fromCallback } from 'xstate';
import { applyDeviceInventoryChanges, deviceListChanges } from '../../domain/device-manager/device-list-changes.js';
import { healthyDeviceIds, type DeviceInventoryEntry } from '../../domain/device-manager/devices.js';
import { serializeError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { DevicesRegisteredEvent, DeviceManagerEvent, ServeRegistrationInput } from '../../machines/device-manager.machine.js';
import type { ListAndWatchEvent, ListAndWatchInput } from '../../machines/device-plugin.machine.js';
import type { DevicePluginHost } from '../../ports/device-plugins.js';

export function createDeviceManagerActors(deps: { host: DevicePluginHost; logger: Logger }) {
  const { host, logger } = deps;
  return {
    serveRegistration: fromCallback<DevicesRegisteredEvent, ServeRegistrationInput>(({ input, sendBack, receive }) => {
      let stopped = false;
      let server: { stop(): Promise<void> } | null = null;
      let devices: Record<string, DeviceInventoryEntry[]> = {};
      receive((event) => {
        devices = applyDeviceInventoryChanges(devices, event.changes);
        host.setRegistered(healthyDeviceIds(devices));
      });
      host.serveRegistration(input.dir, {
        onRegisterReceived: (resourceName, endpoint, refusal) => {
          if (!stopped) sendBack({ type: 'device.registration.received', resourceName, endpoint, refusal } satisfies DeviceManagerEvent);
        },
        onConnected: (resourceName, socketPath) => {
          if (!stopped) sendBack({ type: 'device.plugin.connected', resourceName, socketPath } satisfies DeviceManagerEvent);
        },
      }).then((s) => {
        if (stopped) void s.stop();
        else server = s;
      }, (err: unknown) => {
        logger.error({ err, dir: input.dir }, 'Failed to start the device plugin registration server');
        if (!stopped) sendBack({ type: 'device.registration.failed', error: serializeError(err) } satisfies DeviceManagerEvent);
      });
      return () => {
        stopped = true;
        void server?.stop();
      };
    }),
    listAndWatch: fromCallback<ListAndWatchEvent, ListAndWatchInput>(({ input, sendBack }) => {
      let previous: DeviceInventoryEntry[] | null = null;
      const stream = host.listAndWatch(input.resourceName, input.socketPath, {
        onDevices: (devices) => {
          const changes = deviceListChanges(previous ?? [], devices);
          const first = previous === null;
          previous = devices;
          if (changes === null && !first) return;
          sendBack({ type: 'device.plugin.devices.changed', ...(changes ?? { upserted: [], removed: [] }) } satisfies ListAndWatchEvent);
        },
        onEnded: (error) => sendBack({ type: 'device.plugin.stream.ended', error: error ? serializeError(error) : null } satisfies ListAndWatchEvent),
      });
      return () => stream.stop();
    }),
  };
}
