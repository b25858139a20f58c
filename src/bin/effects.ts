/**
 * The real effects of every machine (SYSTEM_EFFECTS), over the adapters, typed as each machine
 * declares them. The pod-lifecycle effects reach the CRI client and runtime manager through
 * `deps.live`'s slots, because those exist only once run.preInitRuntime and
 * runKubelet.newMainKubelet have built them; no pod actor starts before.
 */
import type { PhaseDeps } from '../actors/phases/deps.js';
import { createPhaseActors } from '../actors/phases/index.js';
import { createPlegActors } from '../actors/pleg/pleg-actors.js';
import { createContainerDeletorActor } from '../actors/gc/container-deletor.js';
import { createSandboxDeletorActor } from '../actors/gc/sandbox-deletor.js';
import { createResourceManagersActor } from '../actors/resource-managers/resource-managers-actor.js';
import { createEvictionActors } from '../actors/eviction/eviction-actors.js';
import { createNodeShutdownActors } from '../actors/node-shutdown/node-shutdown-actors.js';
import { createNodeInfoManager } from '../actors/plugin-manager/node-info-manager.js';
import { createDraPluginActors } from '../actors/plugin-manager/dra-plugin-actors.js';
import { createPluginManagerActors } from '../actors/plugin-manager/plugin-manager-actors.js';
import { createDeviceManagerActors } from '../actors/device-manager/device-manager-actors.js';
import { createPodConfigActors } from '../actors/pod-config/pod-config-actors.js';
import { createApiPodSourceActor } from '../actors/api-pods/api-pod-source.js';
import { createStatusManagerActors } from '../actors/api-pods/status-manager-actors.js';
import { nodeLeaseActors } from '../actors/node/node-lease-actors.js';
import { rotateCertificateActor } from '../actors/certificates/rotate-certificate.js';
import { settings } from '../actors/phases/settings.js';
import { kubeletUserAgent } from '../adapters/apiserver/user-agent.js';
import { nodeFollower } from '../adapters/apiserver/node-informer.js';
import { nodeStatusActors } from '../actors/node/node-status-actors.js';
import type { CriClient } from '../ports/cri.js';
import type { ListedImage } from '../domain/node-status/node-status.js';
import { createPodWorkerActors } from '../actors/pod-worker/pod-worker-actors.js';
import { createProbeActors } from '../actors/probe/probe-actors.js';
import { createVolumeActors } from '../actors/volumes/volume-actors.js';
import { checkRuntimeActor } from '../actors/runtime/check-runtime.js';
import { createContainerManagerActors } from '../actors/container-manager/container-manager-actors.js';
import type { RuntimeManager } from '../ports/runtime-manager.js';
import { createPodSourceIo } from '../adapters/pod-sources/index.js';
import { createProbers } from '../adapters/probers/index.js';
import { actorLogger } from '../log.js';
import { lazyCertificateRenewal } from './certificate-renewal.js';
import { lateHeartbeatApi, lateNodeApi, lateStatusPodApi } from './late-clients.js';
import type { SystemEffects } from './system.js';
import { updateRuntimeConfig } from '../actors/runtime/update-runtime-config.js';

/** The stop reason when ContainerManager.Start fails: the daemon then exits 1, as Go's kubelet does. */
export const CONTAINER_MANAGER_START_FAILED = 'container manager failed to start';

export function createEffects(deps: PhaseDeps): SystemEffects {
  const { live, clock, logger } = deps;
  // Each late slot throws a KubeletBug naming its phase when an effect runs before that phase.
  const cri = { get runtime() { return live.cri.require().runtime; } };
  const lazyManager: Pick<RuntimeManager, 'syncPod' | 'killPod' | 'getPodStatus'> = {
    syncPod: (...a) => live.runtimeManager.require().syncPod(...a),
    killPod: (...a) => live.runtimeManager.require().killPod(...a),
    getPodStatus: (...a) => live.runtimeManager.require().getPodStatus(...a),
  };
  const api = () => live.api.require();
  const clients = { main: lateNodeApi(() => api().main), heartbeat: lateHeartbeatApi(() => api().heartbeat) };
  return {
    ...createPhaseActors(deps),
    ...nodeStatusActors({
      api: clients.main,
      heartbeat: clients.heartbeat,
      listImages: nodeImagesFrom(() => live.cri.peek()),
      followNode: nodeFollower({ api: () => api().main, clock, logger: actorLogger(logger, 'nodeInformer', 'nodeStatus') }),
      updateRuntimeConfig: (podCIDR) => updateRuntimeConfig(cri.runtime, podCIDR),
      clock,
      logger: actorLogger(logger, 'nodeStatus', 'nodeStatus'),
      onRegistrationAnswered: () => live.firstRegistration.answer(),
      volumesInUse: () => live.volumePlugins.peek()?.volumesInUse(),
    }),
    ...nodeLeaseActors({ heartbeat: clients.heartbeat, clock, logger: actorLogger(logger, 'nodeLease', 'nodeLease') }),
    ...certificateEffects(deps),
    ...createStatusManagerActors({ pods: lateStatusPodApi(() => api().main), logger: actorLogger(logger, 'statusManager', 'statusManager') }),
    apiSource: createApiPodSourceActor({
      listPods: (o) => api().main.listPods(o),
      watchPods: (o) => api().main.watchPods(o),
      clock,
      logger: actorLogger(logger, 'apiSource', 'podSource'),
    }),
    checkRuntime: checkRuntimeActor(() => cri.runtime, clock),
    ...createPodConfigActors({ clock, logger: actorLogger(logger, 'podConfig', 'podConfig'), io: createPodSourceIo() }),
    ...createPlegActors(cri, clock),
    containerDeletor: createContainerDeletorActor({ cri, logger: actorLogger(logger, 'containerDeletor', 'containerDeletor') }),
    sandboxDeletor: createSandboxDeletorActor({ cri, logger: actorLogger(logger, 'sandboxDeletor', 'sandboxDeletor') }),
    resourceManagers: createResourceManagersActor({ runtime: () => live.resourceManagers.require(), clock, logger: actorLogger(logger, 'resourceManagers', 'resourceManagers') }),
    ...createPodWorkerActors(lazyManager, clock),
    ...createEvictionActors({ host: deps.eviction, collectors: () => live.garbageCollectors.peek(), clock, logger: actorLogger(logger, 'evictionManager', 'evictionManager') }),
    ...createNodeShutdownActors({ ...deps.nodeShutdown, clock, logger: actorLogger(logger, 'nodeShutdown', 'nodeShutdown') }),
    ...createVolumeActors(() => live.volumePlugins.require(), actorLogger(logger, 'volumeManager', 'volumeManager'), clock),
    ...createPluginManagerActors({
      ...deps.plugins,
      nodeInfo: createNodeInfoManager({ api: () => api().main, clock }),
      logger: actorLogger(logger, 'pluginManager', 'pluginManager'),
    }),
    ...createDraPluginActors({ draDrivers: deps.plugins.draDrivers, logger: actorLogger(logger, 'pluginManager', 'pluginManager') }),
    ...createDeviceManagerActors({ host: deps.devices, logger: actorLogger(logger, 'deviceManager', 'deviceManager') }),
    ...createContainerManagerActors(() => live.containerManager.require(), (err) => {
      logger.error({ err }, 'Failed to start ContainerManager');
      deps.requestStop(`${CONTAINER_MANAGER_START_FAILED}: ${err instanceof Error ? err.message : String(err)}`);
    }),
    ...createProbeActors({
      probers: createProbers({ execSync: (id, cmd, timeout) => live.runtimeManager.require().execSync(id, cmd, timeout) }),
      logger: actorLogger(logger, 'probes', 'probe'),
      clock,
      events: () => live.events.peek(),
    }),
  };
}

/** The node's images for its status (CRI ListImages), in the node status's terms. */
function nodeImagesFrom(cri: () => CriClient | undefined) {
  return async (): Promise<ListedImage[]> => {
    const client = cri();
    if (!client) return [];
    return (await client.images.listImages()).map((i) => ({ repoTags: i.repo_tags, repoDigests: i.repo_digests, sizeBytes: Number(i.size) }));
  };
}

/** The two certificate managers' renewals: the client's reopens the API clients, the serving one swaps the kubelet server's certificate. */
function certificateEffects(deps: PhaseDeps) {
  const { live } = deps;
  const common = {
    settings: () => ({ kubeconfigPath: settings.kubeconfig(live), certDir: settings.flags(live).certDirectory }),
    io: lazyCertificateRenewal({ clock: deps.clock, userAgent: kubeletUserAgent() }),
    clock: deps.clock,
    random: deps.random,
  };
  return {
    rotateClientCertificate: rotateCertificateActor({
      ...common, kind: 'client', install: () => live.api.require().reload(), logger: actorLogger(deps.logger, 'certificateManager', 'certificateManager'),
    }),
    rotateServingCertificate: rotateCertificateActor({
      ...common, kind: 'serving', install: (pair) => deps.servingCertificates.install(pair), logger: actorLogger(deps.logger, 'servingCertificateManager', 'certificateManager'),
    }),
  };
}
