/**
 * The final status of a pod whose worker has finished (Go's status manager TerminatePod): a pod
 * that is gone can report no container as still waiting or running, and no phase that is not
 * terminal, or the status manager would never let its deletion finish (canBeDeleted waits for a
 * terminal phase). Pure.
 *
 * - Once the pod has initialized (no init containers, or a regular container or the last init
 *   container left waiting), every regular container not terminated is shown terminated with
 *   ContainerStatusUnknown, exit 137: the kubelet cannot know whether it succeeded.
 * - Init containers likewise, but for the trailing ones that never started (always leaving the
 *   first): they did not fail, they never ran.
 * - A phase other than Succeeded becomes Failed; static pods keep theirs, as in Go.
 *
 * Differs from Go: initialization is judged from the status being finished (the kubelet's newest),
 * where Go reads the API's pod.status; the two differ only while a status patch is in flight.
 */
import { ContainerStatusUnknown } from './container-statuses.js';
import { isStaticPod } from './phase.js';
import type { ContainerStatus, Pod, PodStatus } from './types.js';

const unknownTermination = {
  terminated: { exitCode: 137, reason: ContainerStatusUnknown, message: 'The container could not be located when the pod was terminated' },
};

const neverStarted = (s: ContainerStatus): boolean => s.state?.waiting !== undefined && s.lastState?.terminated === undefined;

/** hasPodInitialized: no init containers, a regular container that left waiting, or the last init container exited 0. */
function hasPodInitialized(pod: Pod, status: PodStatus): boolean {
  if ((pod.spec.initContainers ?? []).length === 0) return true;
  if ((status.containerStatuses ?? []).some((s) => s.lastState?.terminated !== undefined || s.state?.waiting === undefined)) return true;
  const last = status.initContainerStatuses?.at(-1);
  return last?.lastState?.terminated?.exitCode === 0 || last?.state?.terminated?.exitCode === 0;
}

/** initializedContainers: how many init statuses, from the first, tried to start (at least one). */
function initializedCount(statuses: readonly ContainerStatus[]): number {
  for (let i = statuses.length - 1; i >= 0; i--) if (!neverStarted(statuses[i]!)) return i + 1;
  return Math.min(statuses.length, 1);
}

const terminate = (s: ContainerStatus): ContainerStatus =>
  s.state?.terminated !== undefined ? s : { ...s, state: structuredClone(unknownTermination) };

export function terminatedPodStatus(pod: Pod, status: PodStatus): PodStatus {
  const inits = status.initContainerStatuses;
  const tried = initializedCount(inits ?? []);
  const phase = status.phase === 'Succeeded' ? 'Succeeded' : 'Failed';
  return {
    ...status,
    ...(status.containerStatuses && hasPodInitialized(pod, status) ? { containerStatuses: status.containerStatuses.map(terminate) } : {}),
    ...(inits ? { initContainerStatuses: inits.map((s, i) => (i < tried ? terminate(s) : s)) } : {}),
    ...(isStaticPod(pod) ? {} : { phase }),
  };
}
