/**
 * Applies an in-place resize planned by computePodActions (Go's doPodResizeAction and
 * updatePodContainerResources): reads the pod cgroup, refuses memory decreases below current usage
 * (memory-resize-check.ts), then runs planPodResize's steps in order, each a journaled step
 * (`updatePodCgroup`, `updateContainerResources`). The first failure stops the rest, as in Go: the
 * steps were ordered so that each holds the pod within its bounds, and the next sync retries what
 * is left, planned afresh from the actuated state.
 *
 * A container update sends the container's full cpu and memory settings, the resource being resized
 * at its new amounts and the other at those last actuated (so a failed cpu step does not also move
 * memory), computed as for a container start; never a cpuset, which the runtime keeps as the CPU
 * manager set it (CRI leaves an unset field as it is). After each success the container's actuated
 * amounts are recorded.
 *
 * Not done (Go does): UpdatePodSandboxResources, Go's best-effort notice to the runtime of the pod's
 * new bounds, which CRI runtimes may ignore.
 */
import type { ResourceConfig } from '../../domain/cgroups/resource-config.js';
import { KubeletError } from '../../domain/errors.js';
import { withResource, type ResourceAmounts } from '../../domain/runtime/actuated-resources.js';
import type { PodActions } from '../../domain/runtime/compute-pod-actions.js';
import type { CriLinuxContainerResources } from '../../domain/runtime/cri-config.js';
import { decreasingMemoryLimits, hasDecreasingMemoryLimits, memoryResizeRefusal, type MemoryUsage } from '../../domain/runtime/memory-resize-check.js';
import { planPodResize, type ResizeStep } from '../../domain/runtime/resize-plan.js';
import { linuxContainerResources, type ResourceContext } from '../../domain/runtime/resources.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient } from '../../ports/cri.js';
import type { ResizeOutcome, SyncStepResult } from '../../ports/runtime-manager.js';
import type { ActuatedState } from './actuated-state.js';
import { podRef, runStep } from './step-runner.js';

/** The pod cgroup as a resize reads and writes it (the container manager's); absent without cgroupsPerQOS. */
export interface PodCgroupAccess {
  /** Its settings now; undefined when the pod has no cgroup of its own. */
  read(pod: Pod): Promise<ResourceConfig | undefined>;
  /** What ResourceConfigForPod gives the pod as it is now allocated. */
  desired(pod: Pod): ResourceConfig;
  write(pod: Pod, config: ResourceConfig): Promise<void>;
}

export interface PodResizerDeps {
  cri: CriClient;
  clock: Clock;
  log: Logger;
  actuated: ActuatedState;
  podCgroup?: PodCgroupAccess;
  resources: () => ResourceContext;
}

/** Go's kubecontainer.ErrResizePodInPlace: the reason every failed resize step is shown under. */
export const ERR_RESIZE_POD_IN_PLACE = 'ErrResizePodInPlace';

export function hasResizeWork(actions: PodActions): boolean {
  return (actions.containersToUpdate?.memory.length ?? 0) > 0 || (actions.containersToUpdate?.cpu.length ?? 0) > 0 || actions.updatePodResources === true;
}

const requirementsOf = (a: ResourceAmounts) => {
  const list = (cpuMilli: number, memory: number) => ({ ...(cpuMilli > 0 ? { cpu: `${cpuMilli}m` } : {}), ...(memory > 0 ? { memory: String(memory) } : {}) });
  return { requests: list(a.cpuRequestMilli, a.memoryRequestBytes), limits: list(a.cpuLimitMilli, a.memoryLimitBytes) };
};

/** The CRI settings of `container` at `amounts`, as a start would compute them (cpuset left out). */
export function updateRequest(pod: Pod, container: Container, amounts: ResourceAmounts, ctx: ResourceContext): CriLinuxContainerResources {
  return linuxContainerResources(pod, { ...container, resources: requirementsOf(amounts) }, ctx);
}

const findSpec = (pod: Pod, name: string): Container | undefined =>
  pod.spec.containers.find((c) => c.name === name) ?? (pod.spec.initContainers ?? []).find((c) => c.name === name);

/** Memory in use by the pod's containers (and the pod, from its sandbox's stats or their sum). */
async function readMemoryUsage(cri: CriClient, sandboxId: string | undefined): Promise<MemoryUsage> {
  const stats = await cri.runtime.listContainerStats(sandboxId !== undefined ? { pod_sandbox_id: sandboxId } : {});
  const containers: Record<string, number | undefined> = {};
  for (const s of stats) {
    const used = s.memory?.usage_bytes?.value;
    containers[s.attributes?.id ?? ''] = used === undefined ? undefined : Number(used);
  }
  let pod: number | undefined;
  if (sandboxId !== undefined && cri.runtime.podSandboxStats) {
    const used = (await cri.runtime.podSandboxStats(sandboxId))?.linux?.memory?.usage_bytes?.value;
    if (used !== undefined) pod = Number(used);
  }
  const values = Object.values(containers);
  if (pod === undefined && values.length > 0 && values.every((v) => v !== undefined)) pod = (values as number[]).reduce((a, b) => a + b, 0);
  return { ...(pod !== undefined ? { pod } : {}), containers };
}

/**
 * Runs the resize of `actions`; answers its steps and the outcome. `sandboxId` is the pod's sandbox
 * (for its stats).
 */
export async function resizePod(deps: PodResizerDeps, pod: Pod, actions: PodActions, sandboxId: string | undefined): Promise<{ steps: SyncStepResult[]; outcome: ResizeOutcome }> {
  const { clock, log } = deps;
  const ref = podRef(pod);
  const uid = pod.metadata.uid;
  const steps: SyncStepResult[] = [];
  const fail = (message: string): { steps: SyncStepResult[]; outcome: ResizeOutcome } => {
    log.error({ pod: ref, podUid: uid, message }, 'Pod resize failed');
    return { steps, outcome: { status: 'failed', message } };
  };

  const prepared = await runStep(clock, 'resizePodInPlace', ref, ERR_RESIZE_POD_IN_PLACE, async () => {
    const current = deps.podCgroup ? await deps.podCgroup.read(pod) : undefined;
    const podCgroup = current && deps.podCgroup ? { current, desired: deps.podCgroup.desired(pod) } : undefined;
    const plan = planPodResize(actions.containersToUpdate, actions.updatePodResources === true, podCgroup);
    const decreasing = decreasingMemoryLimits(plan, current?.memoryLimitBytes);
    if (hasDecreasingMemoryLimits(decreasing)) {
      let usage: MemoryUsage;
      try {
        usage = await readMemoryUsage(deps.cri, sandboxId);
      } catch (err) {
        throw new KubeletError('KLT_ERR_CRI_FAILED', `unable to read memory usage for pod ${JSON.stringify(ref)}`, { cause: err });
      }
      const refusal = memoryResizeRefusal(decreasing, usage);
      if (refusal !== null) throw new KubeletError('KLT_ERR_RESIZE_IN_PLACE', refusal);
    }
    return plan;
  });
  steps.push(prepared.result);
  if (!prepared.value) return fail(prepared.result.error?.message ?? 'resize failed');

  // What each container runs with as the steps go: a memory step leaves cpu as it was, and the cpu
  // step after it sends the memory it just set.
  const now = new Map<string, ResourceAmounts>();
  const ctx = deps.resources();
  for (const step of prepared.value) {
    const done = await runResizeStep(deps, pod, step, now, ctx);
    steps.push(done);
    if (!done.ok) return fail(done.error?.message ?? 'resize failed');
  }
  log.debug({ pod: ref, podUid: uid, steps: steps.length }, 'Pod resize applied');
  return { steps, outcome: { status: 'applied' } };
}

async function runResizeStep(deps: PodResizerDeps, pod: Pod, step: ResizeStep, now: Map<string, ResourceAmounts>, ctx: ResourceContext): Promise<SyncStepResult> {
  if (step.kind === 'podCgroup') {
    const { result } = await runStep(deps.clock, 'updatePodCgroup', podRef(pod), ERR_RESIZE_POD_IN_PLACE, async () => {
      await deps.podCgroup?.write(pod, step.config);
    });
    return { ...result, resource: step.resource };
  }
  const { container: update, resource } = step;
  const { result } = await runStep(deps.clock, 'updateContainerResources', update.name, ERR_RESIZE_POD_IN_PLACE, async () => {
    const spec = findSpec(pod, update.name);
    if (!spec) throw new KubeletError('KLT_ERR_RESIZE_IN_PLACE', `container ${JSON.stringify(update.name)} is not in the pod spec`);
    const { runtime } = deps.cri;
    if (!runtime.updateContainerResources) throw new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', 'the CRI client cannot update container resources');
    const target = withResource(now.get(update.name) ?? update.current, update.desired, resource);
    await runtime.updateContainerResources(update.id, updateRequest(pod, spec, target, ctx));
    now.set(update.name, target);
    await deps.actuated.set(pod.metadata.uid, update.name, target);
  });
  return { ...result, id: update.id, resource };
}
