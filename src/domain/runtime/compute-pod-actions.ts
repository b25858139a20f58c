/**
 * What to do to bring a pod's containers in line with its spec: the plan half of the Go kubelet's
 * SyncPod (kuberuntime_manager.go computePodActions with SidecarContainers on, PodSandboxChanged,
 * ShouldContainerBeRestarted). Pure: the executor is the runtime manager.
 *
 * Rules, in Go's order:
 * 1. No sandbox, several ready sandboxes, the newest not ready, or (off the host network) a ready
 *    sandbox without an IP → kill everything and create a sandbox with attempt+1. Then start from
 *    the first init container, or all regular containers (OnFailure, the container's own or else
 *    the pod's, skips those that succeeded).
 *    A pod that must not restart (Never) and has already run containers is only killed; so is a
 *    pod that was initialized and has nothing left to start.
 * 2. Init containers (init-containers.ts): one at a time, in order, each to completion; a failed one
 *    is retried unless restartPolicy is Never, which kills the pod; sidecars are kept running. Pods
 *    without sidecars take Go's classic path, pods with one the SidecarContainers path.
 * 3. Regular containers not running are started when the restart policy allows (Always: always;
 *    OnFailure: last exit ≠ 0; Never: never; created/unknown/never seen: always; a pod being
 *    deleted: never). Unknown ones are killed first. An exited container's own restartPolicy and
 *    restartPolicyRules come before the pod's policy (pod/restart-rules.ts).
 * 4. A running container whose spec hash changed is killed and restarted whatever the policy; one
 *    that failed its liveness or startup probe is killed and restarted unless its policy (its own,
 *    else the pod's) is Never.
 * 5. No regular container running to keep and nothing to start → kill the pod (sidecars included).
 * 6. Ephemeral containers the runtime has not run yet are started in the existing sandbox, even before
 *    initialization is done (ephemeral-containers.ts); a pod being killed starts none.
 * 7. In-place resize (resize-actions.ts), when the caller gives the actuated amounts: a running
 *    regular container kept by rule 4, or a running sidecar not being restarted, whose allocated cpu
 *    or memory differ from its actuated ones is updated in place (containersToUpdate), or killed
 *    and started again when its resizePolicy says RestartContainer (updatePodResources then asks
 *    for the pod cgroup to follow). The spec hash leaves resources out (container-hash.ts), so a
 *    resize alone never restarts through rule 4.
 *
 * Not handled (Go does): a sandbox whose network namespace mode changed (our CRI status view has no
 * namespace options); pod-level resources resized on their own (InPlacePodLevelResourcesVerticalScaling).
 */
import type { Container, Pod } from '../pod/types.js';
import { containerShouldRestart, restartsWithoutExitCode } from '../pod/restart-rules.js';
import { containerSpecChanged } from './container-hash.js';
import {
  classicInitContainerActions, computeInitContainerActions, findNextInitContainerToRun, hasAnyRegularContainerCreated,
  hasRestartableInitContainer, shouldRestartOnFailure,
} from './init-containers.js';
import { ephemeralContainersToStart } from './ephemeral-containers.js';
import { findContainerStatus, type RuntimePodStatus } from './pod-status.js';
import type { ResourceAmounts } from './actuated-resources.js';
import { hasContainersToUpdate, isResizeAllowed, noContainersToUpdate, planContainerResize, type ContainersToUpdate } from './resize-actions.js';

export { isInitContainerFailed, shouldRestartOnFailure } from './init-containers.js';

/** Go's containerKillReason, plus SpecChanged where Go leaves the reason empty. */
export type ContainerKillReason = 'Unknown' | 'LivenessProbe' | 'StartupProbe' | 'SpecChanged' | 'ResizeRequiresRestart';

export interface ContainerToKill {
  id: string;
  name: string;
  reason: ContainerKillReason;
  message: string;
}

export interface PodActions {
  /** Stop every container and sandbox of the pod (SyncPod step 2). */
  killPod: boolean;
  createSandbox: boolean;
  /** The sandbox to use or the one being replaced; absent when there is none. */
  sandboxId?: string;
  /** Attempt number for a new sandbox (previous attempt + 1), or the current sandbox's. */
  attempt: number;
  /** The first init container to start, by name (the only one unless sidecars are involved). */
  nextInitContainerToStart?: string;
  /** Init containers to start, as indices into spec.initContainers, in order (Go's InitContainersToStart). */
  initContainersToStart: number[];
  /** Regular containers to start, by name, in spec order. */
  containersToStart: string[];
  containersToKill: ContainerToKill[];
  /** Ephemeral containers to start, by name, in spec order; absent when none. */
  ephemeralContainersToStart?: string[];
  /** Running containers to resize in place, per resource, decreases first (Go's ContainersToUpdate); absent when none. */
  containersToUpdate?: ContainersToUpdate;
  /** A container is restarted for a resize: the pod cgroup is brought to the allocated pod (Go's UpdatePodResources); absent when not. */
  updatePodResources?: true;
}

/**
 * What the caller knows of a pod's in-place resizes: the amounts each running container (by name)
 * was last started or updated with. Absent for a container without a record (Go's zero value then).
 */
export interface ResizeInput {
  actuated: Readonly<Record<string, ResourceAmounts>>;
}

export interface ProbeFailures {
  /** Names of running containers whose liveness probe failed. */
  livenessFailed?: readonly string[];
  /** Names of running containers whose startup probe failed. */
  startupFailed?: readonly string[];
  /**
   * Names of running containers whose startup probe succeeded. Only sidecars read it: one with a
   * startup probe holds the next init container back until it is listed here.
   */
  startupSucceeded?: readonly string[];
}

/** PodSandboxChanged: [create a sandbox?, its attempt, the current sandbox id]. */
export function podSandboxChanged(pod: Pod, status: RuntimePodStatus): { changed: boolean; attempt: number; sandboxId?: string } {
  const newest = status.sandboxes[0];
  if (!newest) return { changed: true, attempt: 0 };
  const readyCount = status.sandboxes.filter((s) => s.ready).length;
  if (readyCount > 1 || !newest.ready) return { changed: true, attempt: newest.attempt + 1, sandboxId: newest.id };
  if (!pod.spec.hostNetwork && newest.hasNetworkStatus && newest.ips.length === 0) {
    return { changed: true, attempt: newest.attempt + 1, sandboxId: newest.id };
  }
  return { changed: false, attempt: newest.attempt, sandboxId: newest.id };
}

/** ShouldContainerBeRestarted, for a container that is not running. */
export function shouldContainerBeRestarted(container: Container, pod: Pod, status: RuntimePodStatus): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const s = findContainerStatus(status, container.name);
  if (!s) return true;
  if (s.state === 'running') return false;
  if (s.state === 'unknown' || s.state === 'created') return true;
  // Exited: the container's rules and policy, else the pod's (ContainerRestartRules).
  return containerShouldRestart(container, pod.spec, s.exitCode);
}

/**
 * A container that is run only until it succeeds: its own OnFailure policy, else (when it has none)
 * the pod's. A container whose own policy is Always or Never is started again after a new sandbox
 * even in an OnFailure pod, as Go's computePodActions does.
 */
function runsUntilSuccess(container: Container, pod: Pod): boolean {
  return (container.restartPolicy ?? pod.spec.restartPolicy) === 'OnFailure';
}

function containerSucceeded(container: Container, status: RuntimePodStatus): boolean {
  const s = findContainerStatus(status, container.name);
  return s !== undefined && s.state === 'exited' && s.exitCode === 0;
}

export function computePodActions(pod: Pod, status: RuntimePodStatus, probes: ProbeFailures = {}, resize?: ResizeInput): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const actions: PodActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    containersToKill: [],
  };
  if (sandbox.sandboxId !== undefined) actions.sandboxId = sandbox.sandboxId;
  const inits = pod.spec.initContainers ?? [];
  const sidecars = hasRestartableInitContainer(pod);

  if (sandbox.changed) {
    // A Never pod whose containers already ran is done: do not bring up a sandbox just to tear it
    // down. With no container status at all, sandbox creation never succeeded: retry it.
    if (!shouldRestartOnFailure(pod) && sandbox.attempt !== 0 && status.containers.length !== 0) {
      actions.createSandbox = false;
      return actions;
    }
    const toStart = pod.spec.containers
      .filter((c) => !(runsUntilSuccess(c, pod) && containerSucceeded(c, status)))
      .map((c) => c.name);
    const initialized = sidecars ? hasAnyRegularContainerCreated(pod, status) : findNextInitContainerToRun(pod, status).done;
    if (toStart.length === 0 && initialized) {
      actions.createSandbox = false;
      return actions;
    }
    const [first] = inits;
    if (first) {
      actions.nextInitContainerToStart = first.name;
      actions.initContainersToStart = [0];
      return actions;
    }
    actions.containersToStart = toStart;
    return actions;
  }

  const livenessFailed = new Set(probes.livenessFailed ?? []);
  const startupFailed = new Set(probes.startupFailed ?? []);
  const startupSucceeded = new Set(probes.startupSucceeded ?? []);

  const ephemeral = ephemeralContainersToStart(pod, status);
  if (ephemeral.length > 0) actions.ephemeralContainersToStart = ephemeral;

  const init = sidecars
    ? computeInitContainerActions(pod, status, { livenessFailed, startupFailed, startupSucceeded })
    : classicInitContainerActions(pod, status);
  actions.containersToKill.push(...init.toKill);
  actions.initContainersToStart = init.toStart;
  const first = init.toStart[0];
  if (first !== undefined) actions.nextInitContainerToStart = (inits[first] as Container).name;
  if (init.killPod) {
    actions.killPod = true;
    delete actions.ephemeralContainersToStart;
    return actions;
  }
  const resizing = resize && isResizeAllowed(pod) ? { actuated: resize.actuated, updates: noContainersToUpdate() } : undefined;
  if (resizing && sidecars) resizeSidecars(pod, status, actions, resizing);
  const finish = () => {
    if (resizing && hasContainersToUpdate(resizing.updates)) actions.containersToUpdate = resizing.updates;
    return actions;
  };
  // Initialization still in progress: regular containers wait.
  if (!init.initialized) return finish();

  let keepCount = 0;
  for (const container of pod.spec.containers) {
    const s = findContainerStatus(status, container.name);
    if (!s || s.state !== 'running') {
      if (shouldContainerBeRestarted(container, pod, status)) {
        actions.containersToStart.push(container.name);
        if (s?.state === 'unknown') {
          actions.containersToKill.push({ id: s.id, name: s.name, reason: 'Unknown', message: 'Container is in "unknown" state, try killing it before restart' });
        }
      }
      continue;
    }
    // Still running, so no exit code for the rules: the container's own policy, else the pod's.
    let restart = restartsWithoutExitCode(container, pod.spec);
    let reason: ContainerKillReason;
    let message: string;
    if (containerSpecChanged(container, s)) {
      reason = 'SpecChanged';
      message = `Container ${container.name} definition changed`;
      restart = true; // a new spec is started whatever the restart policy
    } else if (livenessFailed.has(container.name)) {
      reason = 'LivenessProbe';
      message = `Container ${container.name} failed liveness probe`;
    } else if (startupFailed.has(container.name)) {
      reason = 'StartupProbe';
      message = `Container ${container.name} failed startup probe`;
    } else {
      const decision = resizing ? planContainerResize(pod, container, s.id, resizing.actuated[container.name], resizing.updates) : undefined;
      if (decision?.kind === 'restart') {
        actions.containersToKill.push({ id: s.id, name: s.name, reason: 'ResizeRequiresRestart', message: decision.message });
        actions.containersToStart.push(container.name);
        actions.updatePodResources = true;
        continue;
      }
      keepCount++;
      continue;
    }
    if (restart) {
      message = `${message}, will be restarted`;
      actions.containersToStart.push(container.name);
    }
    actions.containersToKill.push({ id: s.id, name: s.name, reason, message });
  }

  if (keepCount === 0 && actions.containersToStart.length === 0) {
    actions.killPod = true;
    // Sidecars must not keep a finished pod alive.
    actions.initContainersToStart = [];
    delete actions.nextInitContainerToStart;
    delete actions.ephemeralContainersToStart;
    delete actions.updatePodResources;
    return actions;
  }
  return finish();
}

/**
 * Running sidecars the init pass keeps (not already being restarted) go through the resize plan too,
 * as Go's computeInitContainerActions does; one restarted for a resize is started again in its place
 * among the init containers.
 */
function resizeSidecars(pod: Pod, status: RuntimePodStatus, actions: PodActions, resizing: { actuated: ResizeInput['actuated']; updates: ContainersToUpdate }): void {
  const inits = pod.spec.initContainers ?? [];
  inits.forEach((container, index) => {
    if (container.restartPolicy !== 'Always') return;
    const s = findContainerStatus(status, container.name);
    if (!s || s.state !== 'running' || actions.containersToKill.some((k) => k.id === s.id)) return;
    const decision = planContainerResize(pod, container, s.id, resizing.actuated[container.name], resizing.updates);
    if (decision.kind !== 'restart') return;
    actions.containersToKill.push({ id: s.id, name: s.name, reason: 'ResizeRequiresRestart', message: decision.message });
    if (!actions.initContainersToStart.includes(index)) actions.initContainersToStart = [...actions.initContainersToStart, index].sort((a, b) => a - b);
    const first = actions.initContainersToStart[0];
    if (first !== undefined) actions.nextInitContainerToStart = (inits[first] as Container).name;
    actions.updatePodResources = true;
  });
}
