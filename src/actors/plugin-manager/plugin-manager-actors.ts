/**
 * The plugin manager's effects (plugin-manager.machine.ts, plugin-registration.machine.ts) over the
 * plugin ports, the CSI driver store and Go's nodeinfomanager:
 * - `watchPluginsDir`: the registration directory's sockets as `plugin.socket.created`/`removed`;
 *   a watch that cannot start answers `plugin.watch.failed` once.
 * - `getPluginInfo`, `notifyRegistrationStatus`, `nodeGetInfo`: the gRPC calls.
 * - `installCsiDriver`: the driver into the store (where the CSI volume plugin finds its endpoint),
 *   then, in cluster mode, onto the Node and into the CSINode (Go: RegisterPlugin after NodeGetInfo).
 * - `uninstallCsiDriver`: the driver out of the store, then out of the CSINode and the annotation.
 * - `initializeCsiNode`: the node's CSINode at start.
 * Each logs as Go's kubelet does at the same point.
 */
import { fromCallback, fromPromise } from 'xstate';
import { serializeError } from '../../domain/errors.js';
import type { DriverNodeInfo } from '../../domain/csi/csi-node.js';
import { highestSupportedVersion } from '../../domain/csi/plugin-info.js';
import type { Logger } from '../../log.js';
import type { InitializeCsiNodeInput, PluginManagerEvent, WatchPluginsDirInput } from '../../machines/plugin-manager.machine.js';
import type {
  GetPluginInfoInput, GetPluginInfoOutput, InstallCsiDriverInput, NodeGetInfoInput, NotifyRegistrationStatusInput, UninstallCsiDriverInput,
} from '../../machines/plugin-registration.machine.js';
import type { CsiDriverStore } from '../../ports/csi-drivers.js';
import type { PluginClients, PluginSocketWatcher } from '../../ports/plugin-registration.js';
import type { NodeInfoManager } from './node-info-manager.js';

export interface PluginManagerActorDeps {
  watcher: PluginSocketWatcher;
  clients: PluginClients;
  drivers: CsiDriverStore;
  nodeInfo: NodeInfoManager;
  logger: Logger;
}

export function createPluginManagerActors(deps: PluginManagerActorDeps) {
  const { watcher, clients, drivers, nodeInfo, logger } = deps;
  return {
    watchPluginsDir: fromCallback<PluginManagerEvent, WatchPluginsDirInput>(({ input, sendBack }) => {
      let stopped = false;
      let handle: { stop(): void } | null = null;
      // Stopped while the first walk runs: the walk ends at its next name.
      const abort = new AbortController();
      watcher.watch(input.pluginsDir, {
        onCreated: (socketPath) => sendBack({ type: 'plugin.socket.created', socketPath }),
        onRemoved: (socketPath) => sendBack({ type: 'plugin.socket.removed', socketPath }),
      }, abort.signal).then((h) => {
        if (stopped) h.stop();
        else {
          handle = h;
          logger.info({ path: input.pluginsDir }, 'Plugin Watcher Start');
        }
      }, (err: unknown) => {
        logger.error({ err, path: input.pluginsDir }, 'The desired_state_of_world populator (plugin watcher) starts failed!');
        if (!stopped) sendBack({ type: 'plugin.watch.failed', error: serializeError(err) });
      });
      return () => {
        stopped = true;
        abort.abort();
        handle?.stop();
      };
    }),
    getPluginInfo: fromPromise<GetPluginInfoOutput, GetPluginInfoInput>(async ({ input }) => {
      let info;
      try {
        info = await clients.getInfo(input.socketPath);
      } catch (err) {
        logger.error({ err, path: input.socketPath }, 'OperationExecutor.RegisterPlugin failed');
        throw err;
      }
      // A driver of that name registered from another socket: validation compares its highest version.
      const registered = drivers.get(info.name);
      const highest = registered ? highestSupportedVersion(registered.versions) : undefined;
      return { info, ...(highest && 'version' in highest ? { registeredVersion: highest.version.join('.') } : {}) };
    }),
    notifyRegistrationStatus: fromPromise<void, NotifyRegistrationStatusInput>(async ({ input }) => {
      if (!input.registered) logger.error({ path: input.socketPath, error: input.error }, 'RegisterPlugin error');
      await clients.notifyRegistrationStatus(input.socketPath, { registered: input.registered, error: input.error });
    }),
    nodeGetInfo: fromPromise<DriverNodeInfo, NodeGetInfoInput>(async ({ input }) => {
      logger.info({ pluginName: input.driverName, endpoint: input.endpoint }, 'kubernetes.io/csi: Register new plugin');
      const answer = await clients.nodeGetInfo(input.endpoint);
      return { name: input.driverName, ...answer };
    }),
    installCsiDriver: fromPromise<void, InstallCsiDriverInput>(async ({ input }) => {
      const { plugin, nodeInfo: info } = input;
      drivers.set({ name: plugin.name, endpoint: plugin.endpoint, versions: plugin.versions, nodeId: info.nodeId, maxVolumesPerNode: Math.max(info.maxVolumesPerNode, 0) });
      if (input.csiNode) await nodeInfo.installDriver(input.csiNode.nodeName, info, input.csiNode.migratedPlugins);
      logger.info({ pluginName: plugin.name, endpoint: plugin.endpoint, nodeId: info.nodeId }, 'kubernetes.io/csi: Registered CSI driver');
    }),
    uninstallCsiDriver: fromPromise<void, UninstallCsiDriverInput>(async ({ input }) => {
      logger.info({ pluginName: input.driverName }, 'kubernetes.io/csi: registrationHandler.DeRegisterPlugin request for plugin');
      drivers.delete(input.driverName);
      if (input.csiNode) await nodeInfo.uninstallDriver(input.csiNode.nodeName, input.driverName);
    }),
    initializeCsiNode: fromPromise<void, InitializeCsiNodeInput>(async ({ input }) => {
      try {
        await nodeInfo.initializeCsiNode(input.nodeName, input.migratedPlugins);
      } catch (err) {
        logger.error({ err }, 'Failed to initialize CSINode');
        throw err;
      }
    }),
  };
}
