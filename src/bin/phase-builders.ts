/**
 * The root's side of PhaseBuilders: each part built over the real host, with the daemon's clock and
 * logger, when its phase asks (the phase passes what earlier phases produced). The API clients and
 * the credential provider plugins are loaded on first use: client-node is large, and neither is
 * needed standalone or without the flags.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import { lazyDraPluginClients } from './plugin-clients.js';
import { createApiEventRecorder, createLogEventRecorder } from '../actors/api-pods/event-recorder.js';
import { createContainerManager } from '../actors/container-manager/container-manager.js';
import { startGarbageCollection } from '../actors/gc/gc-loops.js';
import { withContainerLogLinks } from '../actors/logs/container-log-links.js';
import { startContainerLogManager } from '../actors/logs/container-log-manager.js';
import type { PhaseBuilders } from '../actors/phases/builders.js';
import { createRuntimeManager } from '../actors/runtime-manager/runtime-manager.js';
import { serviceEnvSource } from '../actors/runtime-manager/service-env-source.js';
import { startRuntimeClassInformer } from '../adapters/apiserver/runtime-class-informer.js';
import { startServiceInformer } from '../adapters/apiserver/service-informer.js';
import { ProcSysctlReader } from '../adapters/host/proc-sysctl.js';
import { mathRandom } from '../adapters/math-random.js';
import { createVolumeHost } from '../adapters/volumes/volume-host.js';
import { actorLogger, type Logger } from '../log.js';
import type { Clock } from '../ports/clock.js';
import type { ContainerLogHost } from '../ports/container-logs.js';
import type { CsiDriverRegistry } from '../ports/csi-drivers.js';
import type { DraDriverStore } from '../ports/dra-drivers.js';
import type { GcHost } from '../ports/gc-host.js';
import type { Pod } from '../domain/pod/types.js';
import type { RuntimeHost } from '../ports/runtime-host.js';
import { hostCgroups } from './cgroups.js';

export interface PhaseBuilderHost {
  clock: Clock;
  logger: Logger;
  /** The runtime manager's files, hook requests and memory fallback. */
  runtimeHost: RuntimeHost;
  /** The container GC's pods and directories, the image GC's file system. */
  gc: GcHost;
  /** The container log manager's files; the legacy links' files and directory. */
  containerLogs: ContainerLogHost;
  /** The syncLoop's pods as the container manager reads them: active ones, and the uids that may still run. */
  pods: { active: () => Pod[]; possiblyRunning: () => ReadonlySet<string>; claimHolders: () => ReadonlySet<string> | null };
  /** The CSI drivers the plugin manager registers, for the volume host. */
  csiDrivers: CsiDriverRegistry;
  /** The DRA drivers the plugin manager registers, for the DRA claim manager. */
  draDrivers: DraDriverStore;
}

export function phaseBuilders(host: PhaseBuilderHost): PhaseBuilders {
  const { clock, logger, gc } = host;
  return {
    // client-node is used only for a kubeconfig user that is an exec plugin or auth-provider (rest-client.ts).
    apiClients: async (o) => {
      const { createApiClients } = await import('../adapters/apiserver/create-api-clients.js');
      return createApiClients({ ...o, clock, logger: actorLogger(logger, 'apiClients', 'apiserver') });
    },
    cgroups: hostCgroups,
    volumeHost: (o) => createVolumeHost({ clock, random: mathRandom, logger: actorLogger(logger, 'volumeManager', 'volumeManager'), csiDrivers: host.csiDrivers }, o),
    serviceEnvironment: (api) => {
      const informer = startServiceInformer({ api, clock, logger: actorLogger(logger, 'serviceInformer', 'apiserver') });
      return { envFor: serviceEnvSource(informer), stop: () => informer.stop() };
    },
    runtimeClassInformer: (api) => startRuntimeClassInformer({ api, clock, logger: actorLogger(logger, 'runtimeClassInformer', 'apiserver') }),
    imageCredentialProviders: async (configPath, binDir) =>
      (await import('../adapters/credential-provider/load-providers.js')).loadCredentialProviders(configPath, binDir, { clock, logger: actorLogger(logger, 'credentialProviders', 'runtimeManager') }),
    containerLogLinks: (cri) => withContainerLogLinks(cri, host.containerLogs, logger),
    draClaimManager: async ({ api, nodeName, rootDir, files }) => {
      const [{ createDraClaimManager }, { claimCheckpointFile }, { wipeNodeResourceSlices }, { startClaimReconcileLoop }, { startDriverSliceWipes }] = await Promise.all([
        import('../adapters/dra/dra-claim-manager.js'), import('../adapters/dra/claim-checkpoint-file.js'), import('../adapters/dra/resource-slice-wipe.js'),
        import('../adapters/dra/claim-reconcile-loop.js'), import('../adapters/dra/driver-slice-wipes.js'),
      ]);
      // The gRPC clients load when a DRA driver first registers: most nodes never see one.
      const draLogger = actorLogger(logger, 'draManager', 'runtimeManager');
      const plugins = lazyDraPluginClients(host.draDrivers, draLogger);
      const manager = await createDraClaimManager({
        getClaim: (namespace, name) => api.getResourceClaim(namespace, name),
        plugins,
        checkpoint: claimCheckpointFile(rootDir, files),
        logger: draLogger,
      });
      const wipeDeps = { api, nodeName, random: () => mathRandom.next(), logger: draLogger, sleep: (ms: number, signal: AbortSignal) => sleepFor(ms, undefined, { signal }) };
      const stopping = new AbortController();
      void wipeNodeResourceSlices(wipeDeps, stopping.signal);
      const driverWipes = startDriverSliceWipes({ registry: host.draDrivers, clock, wipe: (driver, signal) => wipeNodeResourceSlices(wipeDeps, signal, driver) });
      const reconciling = startClaimReconcileLoop({ manager, holders: host.pods.claimHolders, clock });
      return { manager, close: () => { stopping.abort(); driverWipes.stop(); reconciling.stop(); plugins.close(); } };
    },
    runtimeManager: (o) => createRuntimeManager({ ...o, clock, logger, host: host.runtimeHost }),
    garbageCollection: ({ cri, podLogsDir, containers, images }) => startGarbageCollection({
      clock,
      logger,
      containers: { cri, policy: containers, activePods: gc.activePods, podLogsDir, listDirs: gc.listDirs, removeDir: gc.removeDir },
      images: { cri, policy: images, fsUsage: gc.fsUsage },
    }),
    containerLogManager: ({ cri, policy }) => startContainerLogManager({ cri, files: host.containerLogs.files, policy, clock, logger }),
    logEventRecorder: () => createLogEventRecorder(logger.child({ component: 'events' })),
    apiEventRecorder: ({ events, host: node }) => createApiEventRecorder({ events, clock, logger: logger.child({ component: 'events' }), host: node }),
    containerManager: (o) => createContainerManager({
      ...o, activePods: host.pods.active, possiblyRunning: host.pods.possiblyRunning, sysctl: new ProcSysctlReader(), logger: logger.child({ component: 'containerManager' }),
    }),
  };
}
