/**
 * The real effects of every machine (SYSTEM_EFFECTS), over the adapters. The pod-lifecycle effects
 * reach the CRI client and runtime manager through `deps.live`, because those exist only once
 * run.preInitRuntime and runKubelet.newMainKubelet have built them; no pod actor starts before.
 */
import type { AnyActorLogic } from 'xstate';
import type { PhaseDeps } from '../actors/phases/deps.js';
import { createPhaseActors } from '../actors/phases/index.js';
import { createPlegActors } from '../actors/pleg/pleg-actors.js';
import { createPodConfigActors } from '../actors/pod-config/pod-config-actors.js';
import { createApiPodSourceActor } from '../actors/api-pods/api-pod-source.js';
import { createStatusManagerActors } from '../actors/api-pods/status-manager-actors.js';
import { nodeLeaseActors } from '../actors/node/node-lease-actors.js';
import { nodeStatusActors } from '../actors/node/node-status-actors.js';
import type { CriClient } from '../ports/cri.js';
import type { ListedImage } from '../domain/node-status/node-status.js';
import { createPodWorkerActors } from '../actors/pod-worker/pod-worker-actors.js';
import { createProbeActors } from '../actors/probe/probe-actors.js';
import { checkRuntimeActor } from '../actors/runtime/check-runtime.js';
import type { RuntimeManager } from '../ports/runtime-manager.js';
import { createPodSourceIo } from '../adapters/pod-sources/index.js';
import { createProbers } from '../adapters/probers/index.js';
import { KubeletBug } from '../domain/errors.js';
import { actorLogger } from '../log.js';

export function createEffects(deps: PhaseDeps): Record<string, AnyActorLogic> {
  const { live, clock, logger } = deps;
  const manager = (): RuntimeManager => {
    if (!live.runtimeManager) throw new KubeletBug('a pod actor ran before runKubelet.newMainKubelet');
    return live.runtimeManager;
  };
  const cri = {
    get runtime() {
      if (!live.cri) throw new KubeletBug('a pod actor ran before run.preInitRuntime');
      return live.cri.runtime;
    },
  };
  const lazyManager: Pick<RuntimeManager, 'syncPod' | 'killPod' | 'getPodStatus'> = {
    syncPod: (...a) => manager().syncPod(...a),
    killPod: (...a) => manager().killPod(...a),
    getPodStatus: (...a) => manager().getPodStatus(...a),
  };
  const api = () => {
    if (!live.api) throw new KubeletBug('an API server actor ran without run.clients having built the clients');
    return live.api;
  };
  // The API clients exist only after run.clients: effects reach them through a late-binding view.
  const late = <T extends object>(get: () => T): T =>
    new Proxy({} as T, { get: (_t, prop) => (...args: unknown[]) => (get() as Record<string | symbol, (...a: unknown[]) => unknown>)[prop]!(...args) });
  const clients = { main: late(() => api().main), heartbeat: late(() => api().heartbeat) };
  return {
    ...createPhaseActors(deps),
    ...nodeStatusActors({ api: clients.main, heartbeat: clients.heartbeat, listImages: nodeImagesFrom(() => live.cri), clock, logger: actorLogger(logger, 'nodeStatus', 'nodeStatus') }),
    ...nodeLeaseActors({ heartbeat: clients.heartbeat, clock, logger: actorLogger(logger, 'nodeLease', 'nodeLease') }),
    ...createStatusManagerActors({ pods: clients.main, logger: actorLogger(logger, 'statusManager', 'statusManager') }),
    apiSource: createApiPodSourceActor({
      listPods: (o) => api().main.listPods(o),
      watchPods: (o) => api().main.watchPods(o),
      clock,
      logger: actorLogger(logger, 'apiSource', 'podSource'),
    }),
    checkRuntime: checkRuntimeActor(() => cri.runtime, clock),
    ...createPodConfigActors({ clock, logger: actorLogger(logger, 'podConfig', 'podConfig'), io: createPodSourceIo() }),
    ...createPlegActors(cri, clock),
    ...createPodWorkerActors(lazyManager, clock),
    ...createProbeActors({
      probers: createProbers({ execSync: (id, cmd, timeout) => manager().execSync(id, cmd, timeout) }),
      logger: actorLogger(logger, 'probes', 'probe'),
    }),
  } as unknown as Record<string, AnyActorLogic>;
}

/** The node's images for its status (CRI ListImages), in the node status's terms. */
function nodeImagesFrom(cri: () => CriClient | undefined) {
  return async (): Promise<ListedImage[]> => {
    const client = cri();
    if (!client) return [];
    return (await client.images.listImages()).map((i) => ({ repoTags: i.repo_tags, repoDigests: i.repo_digests, sizeBytes: Number(i.size) }));
  };
}
