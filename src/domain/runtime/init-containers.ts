/**
 * Init container progress, as the Go kubelet computes it. Like Go (kuberuntime_manager.go
 * computePodActions), a pod without sidecars takes the classic path (findNextInitContainerToRun) and
 * a pod with one takes the SidecarContainers path (computeInitContainerActions; the feature is on by
 * default since 1.29, GA in 1.33).
 *
 * Ordinary init containers run one at a time, in order, each to completion: a failed one (exit ≠ 0,
 * OOMKilled, unknown state) is retried unless its restart policy says no, which fails the pod: the
 * container's own restartPolicy and restartPolicyRules, else the pod's (ContainerRestartRules). A
 * restartable init container (`restartPolicy: Always`, a sidecar) only has to be started (running,
 * and its startup probe succeeded if it has one) before the next init container starts; it is kept
 * running for the pod's life, restarted whenever it exits whatever the pod's restart policy, and
 * restarted when its spec changes or its liveness/startup probe fails.
 *
 * The pod counts as initialized once a regular container is created or running (the init containers
 * may since have been removed from the runtime) or once the last init container is done/started.
 * Containers are looked at from the last init container backwards, because completed init
 * containers may have been garbage collected: the newest evidence of progress wins.
 */
import type { Container, Pod } from '../pod/types.js';
import { containerShouldRestart, restartsWithoutExitCode } from '../pod/restart-rules.js';
import { containerSpecChanged } from './container-hash.js';
import { findContainerStatus, type RuntimeContainerStatus, type RuntimePodStatus } from './pod-status.js';

export interface InitContainerKill {
  id: string;
  name: string;
  reason: 'Unknown' | 'LivenessProbe' | 'StartupProbe' | 'SpecChanged';
  message: string;
}

export interface InitContainerProbes {
  livenessFailed: ReadonlySet<string>;
  startupFailed: ReadonlySet<string>;
  startupSucceeded: ReadonlySet<string>;
}

export interface InitContainerActions {
  /** True once the regular containers may run. */
  initialized: boolean;
  /** Initialization failed for good (an ordinary init container failed and is not to be restarted). */
  killPod: boolean;
  /** Indices into spec.initContainers, in spec order. */
  toStart: number[];
  toKill: InitContainerKill[];
}

export function isRestartableInitContainer(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

export function isInitContainerFailed(status: RuntimeContainerStatus): boolean {
  return status.reason.includes('OOMKilled') || (status.state === 'exited' && status.exitCode !== 0) || status.state === 'unknown';
}

export function shouldRestartOnFailure(pod: Pod): boolean {
  return (pod.spec.restartPolicy ?? 'Always') !== 'Never';
}

/**
 * Whether a failed ordinary init container is retried (else the pod fails). With
 * ContainerRestartRules this is the container's own decision: an exited one by its rules and policy
 * (ShouldContainerBeRestarted, so never for a pod being deleted); one in an unknown state by its
 * policy alone, since it may not have exited and there is no exit code for the rules.
 */
export function failedInitContainerRestarts(container: Container, pod: Pod, status: RuntimeContainerStatus): boolean {
  if (status.state === 'exited') return !pod.metadata.deletionTimestamp && containerShouldRestart(container, pod.spec, status.exitCode);
  return restartsWithoutExitCode(container, pod.spec);
}

/** A created, running or exited regular container means initialization completed once (hasAnyRegularContainerCreated). */
export function hasAnyRegularContainerCreated(pod: Pod, status: RuntimePodStatus): boolean {
  return pod.spec.containers.some((c) => {
    const s = findContainerStatus(status, c.name);
    return s !== undefined && s.state !== 'unknown';
  });
}

/** A pod with a restartable init container takes the sidecar path (HasRestartableInitContainer). */
export function hasRestartableInitContainer(pod: Pod): boolean {
  return (pod.spec.initContainers ?? []).some(isRestartableInitContainer);
}

/**
 * findNextInitContainerToRun (pods without sidecars): the newest failed init container (to retry),
 * else the one after the newest exited one, else the first; done once the last one exited or a
 * regular container runs. A running init container means "not done, nothing to start".
 */
export function findNextInitContainerToRun(pod: Pod, status: RuntimePodStatus): { lastStatus?: RuntimeContainerStatus; next?: number; done: boolean } {
  const inits = pod.spec.initContainers ?? [];
  if (inits.length === 0) return { done: true };
  // A running regular container means initialization completed earlier, even if the runtime has
  // since removed the init containers: do not run them again.
  if (pod.spec.containers.some((c) => findContainerStatus(status, c.name)?.state === 'running')) return { done: true };

  for (let i = inits.length - 1; i >= 0; i--) {
    const s = findContainerStatus(status, (inits[i] as Container).name);
    if (s && isInitContainerFailed(s)) return { lastStatus: s, next: i, done: false };
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const s = findContainerStatus(status, (inits[i] as Container).name);
    if (!s) continue;
    if (s.state === 'running') return { done: false };
    if (s.state === 'exited') return i === inits.length - 1 ? { done: true } : { next: i + 1, done: false };
  }
  return { next: 0, done: false };
}

/** The classic path as InitContainerActions, so the caller handles both paths alike. */
export function classicInitContainerActions(pod: Pod, status: RuntimePodStatus): InitContainerActions {
  const found = findNextInitContainerToRun(pod, status);
  const result: InitContainerActions = { initialized: found.done, killPod: false, toStart: [], toKill: [] };
  if (found.done || found.next === undefined) return result;
  const failed = found.lastStatus !== undefined && isInitContainerFailed(found.lastStatus);
  const container = pod.spec.initContainers?.[found.next] as Container;
  if (failed && !failedInitContainerRestarts(container, pod, found.lastStatus as RuntimeContainerStatus)) return { ...result, killPod: true };
  if (found.lastStatus?.state === 'unknown') {
    result.toKill.push({
      id: found.lastStatus.id,
      name: container.name,
      reason: 'Unknown',
      message: 'Init container is in "unknown" state, try killing it before restart',
    });
  }
  result.toStart.push(found.next);
  return result;
}

export function computeInitContainerActions(pod: Pod, status: RuntimePodStatus, probes: InitContainerProbes): InitContainerActions {
  const inits = pod.spec.initContainers ?? [];
  const result: InitContainerActions = { initialized: inits.length === 0, killPod: false, toStart: [], toKill: [] };
  if (inits.length === 0) return result;

  // Exited regular containers do not count: after a reboot every container is exited and the new
  // sandbox must initialize again.
  result.initialized = pod.spec.containers.some((c) => {
    const state = findContainerStatus(status, c.name)?.state;
    return state === 'created' || state === 'running';
  });
  let previouslyInitialized = result.initialized;
  const last = inits.length - 1;
  const restart = (i: number, s: RuntimeContainerStatus, reason: InitContainerKill['reason'], message: string): void => {
    result.toKill.push({ id: s.id, name: s.name, reason, message });
    result.toStart.push(i);
  };

  for (let i = last; i >= 0; i--) {
    const container = inits[i] as Container;
    const restartable = isRestartableInitContainer(container);
    const s = findContainerStatus(status, container.name);
    if (!s) {
      // Gone from the runtime after initialization: only a sidecar needs to come back.
      if (previouslyInitialized && restartable) result.toStart.push(i);
      continue;
    }
    if (previouslyInitialized && !restartable) continue; // done its job; only sidecars are kept running

    switch (s.state) {
      case 'created':
        // Create and start happen in one step; a container left created failed to start: again.
        result.toStart.push(i);
        break;
      case 'running': {
        if (!restartable) break; // still initializing: wait for it
        if (container.startupProbe) {
          if (probes.startupFailed.has(container.name)) {
            restart(i, s, 'StartupProbe', `Init container ${container.name} failed startup probe`);
            break;
          }
          if (!probes.startupSucceeded.has(container.name)) break; // not started yet: wait
        }
        if (i === last) result.initialized = true;
        else if (!previouslyInitialized) result.toStart.push(i + 1);
        if (containerSpecChanged(container, s)) {
          restart(i, s, 'SpecChanged', `Init container ${container.name} definition changed`);
        } else if (container.livenessProbe && probes.livenessFailed.has(container.name)) {
          restart(i, s, 'LivenessProbe', `Init container ${container.name} failed liveness probe`);
        }
        break;
      }
      case 'exited':
        if (restartable) {
          result.toStart.push(i);
        } else if (isInitContainerFailed(s)) {
          if (!failedInitContainerRestarts(container, pod, s)) return { ...result, killPod: true, toStart: [] };
          result.toStart.push(i);
        } else if (i === last) {
          result.initialized = true;
        } else {
          result.toStart.push(i + 1);
        }
        break;
      default: // unknown: it may still run, so stop it before starting another
        if (!restartable && !failedInitContainerRestarts(container, pod, s)) return { ...result, killPod: true, toStart: [] };
        restart(i, s, 'Unknown', `Init container is in "${s.state}" state, try killing it before restart`);
    }
    previouslyInitialized = true;
  }

  if (!previouslyInitialized) result.toStart.push(0); // nothing ran yet: start at the beginning
  result.toStart.reverse();
  return result;
}
