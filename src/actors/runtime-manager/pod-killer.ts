/**
 * Stopping a pod (Go's killPodWithSyncResult) and forgetting old init containers
 * (purgeInitContainers, pruneInitContainersBeforeStart). Containers are stopped first, in parallel,
 * each with its preStop hook and grace period (sidecars after the containers they serve); only then
 * the sandboxes, because containerd's StopPodSandbox kills whatever still runs in the sandbox
 * without grace. Nothing is removed: that is garbage collection's job.
 */
import { KubeletError } from '../../domain/errors.js';
import { allContainers } from '../../domain/pod/pod-containers.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import type { RuntimePodStatus } from '../../domain/runtime/pod-status.js';
import { hasRestartableInitContainer } from '../../domain/runtime/init-containers.js';
import { killContainer } from './container-killer.js';
import type { HookDeps } from './lifecycle-hooks.js';
import { podRef, runStep } from './step-runner.js';
import type { SyncStepResult } from '../../ports/runtime-manager.js';
import { TerminationOrdering } from './termination-ordering.js';

export type PodKillerDeps = HookDeps;

/** Every container of the spec, ephemeral ones included (Go's GetContainerSpec), by name. */
export function specsByName(pod: Pod): Map<string, Container> {
  return new Map(allContainers(pod).map((c) => [c.name, c]));
}

export async function killPodContainersAndSandboxes(deps: PodKillerDeps, pod: Pod, status: RuntimePodStatus, gracePeriodOverride?: number): Promise<SyncStepResult[]> {
  const { cri, clock } = deps;
  const specs = specsByName(pod);
  const running = status.containers.filter((c) => c.state === 'running');
  const ordering = hasRestartableInitContainer(pod) ? new TerminationOrdering(pod, running.map((c) => c.name), clock) : undefined;
  const kills = await Promise.all(running.map(async (c) => {
    const { result } = await runStep(clock, 'killContainer', c.name, 'KillContainerError',
      () => killContainer(deps, pod, specs.get(c.name), { id: c.id, name: c.name }, status.ips, gracePeriodOverride, ordering));
    return { ...result, id: c.id };
  }));
  // Sandboxes are stopped even when a container could not be, as Go does: the sandbox stop then
  // takes down what is left.
  const { result } = await runStep(clock, 'killPodSandbox', podRef(pod), 'KillPodSandboxError', async () => {
    for (const s of status.sandboxes) {
      try {
        await cri.runtime.stopPodSandbox(s.id);
      } catch (err) {
        if (!(err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND')) throw err;
      }
    }
  });
  return [...kills, result];
}

async function removeInitContainer(deps: PodKillerDeps, pod: Pod, containerId: string): Promise<void> {
  try {
    await deps.cri.runtime.removeContainer(containerId);
  } catch (err) {
    deps.log.warn({ pod: podRef(pod), containerId, err }, 'Failed to remove pod init container');
  }
}

/** A new sandbox starts initialization over: the old sandbox's init containers go. Failures are only logged. */
export async function purgeInitContainers(deps: PodKillerDeps, pod: Pod, status: RuntimePodStatus): Promise<void> {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  for (const c of status.containers) {
    if (names.has(c.name)) await removeInitContainer(deps, pod, c.id);
  }
}

/**
 * Keep only the newest exited (or unknown) instance of each init container
 * (pruneInitContainersBeforeStart): older ones only load the garbage collector. Failures are only logged.
 * Answers how many it tried to remove (the pod's runtime status may have changed when any).
 */
export async function pruneInitContainers(deps: PodKillerDeps, pod: Pod, status: RuntimePodStatus): Promise<number> {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  const kept = new Set<string>();
  let tried = 0;
  // status.containers is newest first, so the first instance seen of a name is the one to keep.
  for (const c of status.containers) {
    if (!names.has(c.name) || (c.state !== 'exited' && c.state !== 'unknown')) continue;
    if (!kept.has(c.name)) {
      kept.add(c.name);
      continue;
    }
    tried += 1;
    await removeInitContainer(deps, pod, c.id);
  }
  return tried;
}
