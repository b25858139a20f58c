/**
 * The plugin manager's gRPC clients, loaded on the first call: @grpc/grpc-js and the CSI codecs are
 * large and most nodes never see a plugin socket, so a kubelet without one never loads them.
 */
import type { PluginClients } from '../ports/plugin-registration.js';

export function lazyPluginClients(): PluginClients {
  let loaded: Promise<PluginClients> | undefined;
  const clients = () => (loaded ??= import('../adapters/csi/plugin-clients.js').then((m) => m.createPluginClients()));
  return {
    getInfo: async (socketPath) => (await clients()).getInfo(socketPath),
    notifyRegistrationStatus: async (socketPath, status) => (await clients()).notifyRegistrationStatus(socketPath, status),
    nodeGetInfo: async (endpoint) => (await clients()).nodeGetInfo(endpoint),
  };
}
