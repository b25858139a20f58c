/**
 * The device plugins' adapter, loaded on its first use: @grpc/grpc-js and the device plugin codecs
 * are large, and the kubelet's first moments (healthz listening) do not wait for them. The metrics
 * exist from the start, so /metrics has them before the adapter is loaded.
 */
import type { Logger } from '../log.js';
import type { ContainerDeviceAllocator, DeviceCheckpointReader, DevicePluginHost, DevicePluginMetrics } from '../ports/device-plugins.js';

type Host = DevicePluginHost & ContainerDeviceAllocator & DeviceCheckpointReader;

export function lazyDevicePluginHost(deps: { logger: Logger; nowMs(): number }): Host & { metrics: DevicePluginMetrics } {
  const metrics: DevicePluginMetrics = { registrations: {}, allocDurations: {} };
  let loaded: Promise<Host> | undefined;
  const host = () => (loaded ??= import('../adapters/device-plugins/device-plugin-host.js').then((m) => m.createDevicePluginHost({ ...deps, metrics })));
  return {
    metrics,
    serveRegistration: async (dir, handlers) => (await host()).serveRegistration(dir, handlers),
    listAndWatch(resourceName, socketPath, handlers) {
      let stopped = false;
      let stream: { stop(): void } | undefined;
      void host().then((h) => {
        if (!stopped) stream = h.listAndWatch(resourceName, socketPath, handlers);
      }, (err: unknown) => handlers.onEnded(err instanceof Error ? err : new Error(String(err))));
      return {
        stop: () => {
          stopped = true;
          stream?.stop();
        },
      };
    },
    setRegistered: (registered) => void host().then((h) => h.setRegistered(registered)),
    setHeld: (held) => void host().then((h) => h.setHeld(held)),
    containerDevices: async (podUid, containerName, devices) => (await host()).containerDevices(podUid, containerName, devices),
    read: async (dir) => (await host()).read(dir),
  };
}
