/**
 * The device manager's effects (device-manager.machine.ts, device-plugin.machine.ts) over the
 * device plugin port:
 * - `serveRegistration`: kubelet.sock served while the device manager serves; each Register call
 *   as `device.registration.received`, each plugin that answered its options as
 *   `device.plugin.connected`; a server that cannot start answers `device.registration.failed`
 *   once. The healthy devices the machine sends it go to the checkpoint.
 * - `listAndWatch`: one plugin's stream, each answer as `device.plugin.devices.listed`, its end as
 *   `device.plugin.stream.ended`.
 */
import { fromCallback } from 'xstate';
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
      receive((event) => host.setRegistered(event.registered));
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
      const stream = host.listAndWatch(input.resourceName, input.socketPath, {
        onDevices: (devices) => sendBack({ type: 'device.plugin.devices.listed', devices } satisfies ListAndWatchEvent),
        onEnded: (error) => sendBack({ type: 'device.plugin.stream.ended', error: error ? serializeError(error) : null } satisfies ListAndWatchEvent),
      });
      return () => stream.stop();
    }),
  };
}
