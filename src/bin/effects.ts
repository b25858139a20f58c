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
import { createPodWorkerActors } from '../actors/pod-worker/pod-worker-actors.js';
import { createProbeActors } from '../actors/probe/probe-actors.js';
import { checkRuntimeActor } from '../actors/runtime/check-runtime.js';
import type { RuntimeManager } from '../actors/runtime-manager/runtime-manager.js';
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
  return {
    ...createPhaseActors(deps),
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
