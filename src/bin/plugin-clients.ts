/**
 * The plugin manager's gRPC clients, loaded on the first call: @grpc/grpc-js and the CSI codecs are
 * large and most nodes never see a plugin socket, so a kubelet without one never loads them.
 */
import type { PluginClients } from '../ports/plugin-registration.js';
import type { DraConnectionReports } from '../ports/dra-drivers.js';
import type { Logger } from '../log.js';
import type { DraPluginClients } from '../ports/dra-plugins.js';
import { draPluginMissing } from '../domain/dra/plugin-services.js';
import { KubeletError } from '../domain/errors.js';

export function lazyPluginClients(): PluginClients {
  let loaded: Promise<PluginClients> | undefined;
  const clients = () => (loaded ??= import('../adapters/csi/plugin-clients.js').then((m) => m.createPluginClients()));
  return {
    getInfo: async (socketPath) => (await clients()).getInfo(socketPath),
    notifyRegistrationStatus: async (socketPath, status) => (await clients()).notifyRegistrationStatus(socketPath, status),
    nodeGetInfo: async (endpoint) => (await clients()).nodeGetInfo(endpoint),
  };
}

/**
 * The DRA plugins' clients, loaded when the first plugin registers (its connection is watched from
 * then on) or at the first call. Whether a driver has a plugin is answered at once from the
 * registry, with Go's words, as the loaded clients answer it.
 */
export function lazyDraPluginClients(registry: DraConnectionReports, logger?: Logger): DraPluginClients {
  let loaded: Promise<DraPluginClients> | undefined;
  const clients = () => {
    // Loaded, the clients follow the registry themselves.
    unsubscribe();
    return (loaded ??= import('../adapters/dra/dra-plugin-clients.js').then((m) => m.createDraPluginClients(registry, { logger })));
  };
  const unsubscribe = registry.onChange(() => void clients());
  if (registry.list().length > 0) void clients();
  return {
    get(driverName) {
      const missing = draPluginMissing(driverName, registry.get(driverName) !== undefined);
      if (missing !== null) throw new KubeletError('KLT_ERR_DRA_PLUGIN', missing);
      return {
        nodePrepareResources: async (claims) => (await clients()).get(driverName).nodePrepareResources(claims),
        nodeUnprepareResources: async (claims) => (await clients()).get(driverName).nodeUnprepareResources(claims),
      };
    },
    close() {
      unsubscribe();
      void loaded?.then((c) => c.close());
    },
  };
}
