/**
 * The pod phase from its container statuses (pkg/kubelet/kubelet_pods.go getPhase), without the
 * sidecar (restartable init container) counters: sidecars are treated as ordinary init containers,
 * as compute-pod-actions does.
 *
 * Whether a stopped container will be started again is ContainerRestartRules' question
 * (restart-rules.ts): its own restartPolicy and restartPolicyRules on its exit code, else the pod's
 * restart policy.
 *
 * - An init container failed and will not be retried → Failed.
 * - Initialization pending (an init container not yet run, running, or waiting without a past
 *   failure), or a regular container waiting for its first start → Pending.
 * - Some regular container running and none unknown → Running.
 * - None running, some stopped, none unknown: a terminal pod (its worker is terminating it) that is
 *   not static → Succeeded if every stopped container exited 0, else Failed; otherwise some
 *   container will be restarted → Running, all exited 0 → Succeeded, else Failed.
 * - Anything else → Pending.
 */
import { containerShouldRestart } from './restart-rules.js';
import type { Container, ContainerStatus, Pod, PodPhase } from './types.js';

/** Go's ConfigSourceAnnotationKey: where the pod came from (file, http, api). */
export const configSourceAnnotation = 'kubernetes.io/config.source';

/** A pod from a file or URL source rather than the API server (kubetypes.IsStaticPod). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[configSourceAnnotation];
  return source !== undefined && source !== 'api';
}

function byName(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/** HasAnyRegularContainerStarted: some regular container is running or has terminated. */
export function hasAnyRegularContainerStarted(pod: Pod, statuses: readonly ContainerStatus[]): boolean {
  return pod.spec.containers.some((c) => {
    const s = byName(statuses, c.name);
    return s?.state?.running !== undefined || s?.state?.terminated !== undefined;
  });
}

export function getPodPhase(pod: Pod, statuses: readonly ContainerStatus[], podIsTerminal: boolean): PodPhase {
  const spec = pod.spec;
  let pendingInitialization = 0;
  // Failed init containers that will not be retried: the container's rules and policy, else the pod's.
  let failedInitializationNotRestartable = 0;
  const failedInit = (container: Container, exitCode: number) => {
    if (exitCode !== 0 && !containerShouldRestart(container, spec, exitCode)) failedInitializationNotRestartable++;
  };
  for (const container of spec.initContainers ?? []) {
    const s = byName(statuses, container.name);
    if (!s) {
      pendingInitialization++;
    } else if (s.state?.running) {
      pendingInitialization++;
    } else if (s.state?.terminated) {
      failedInit(container, s.state.terminated.exitCode);
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) {
        failedInit(container, s.lastState.terminated.exitCode);
      } else {
        pendingInitialization++;
      }
    } else {
      pendingInitialization++;
    }
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  // Stopped containers that will not be started again; the others are restarting.
  let stoppedNotRestartable = 0;
  let succeeded = 0;
  const stop = (container: Container, exitCode: number) => {
    stopped++;
    if (!containerShouldRestart(container, spec, exitCode)) stoppedNotRestartable++;
  };
  for (const container of spec.containers) {
    const s = byName(statuses, container.name);
    if (!s) {
      unknown++;
    } else if (s.state?.running) {
      running++;
    } else if (s.state?.terminated) {
      stop(container, s.state.terminated.exitCode);
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stop(container, s.lastState.terminated.exitCode);
      else waiting++;
    } else {
      unknown++;
    }
  }

  if (failedInitializationNotRestartable > 0) return 'Failed';
  // Initialization counts as pending only until a regular container has run (HasAnyRegularContainerStarted).
  const anyRegularStarted = hasAnyRegularContainerStarted(pod, statuses);
  if ((pendingInitialization > 0 && !anyRegularStarted) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal && !isStaticPod(pod)) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (stopped !== stoppedNotRestartable) return 'Running'; // some container is being restarted
    return stopped === succeeded ? 'Succeeded' : 'Failed';
  }
  return 'Pending';
}
