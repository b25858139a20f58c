/**
 * Stopping one container (Go's killContainer): the grace period (override, deletion grace, probe
 * grace, pod grace), then the preStop hook, which uses up part of it, then (for a sidecar during pod
 * termination) the wait for its turn, then StopContainer with what is left but never less than 2 s.
 * A container already gone counts as stopped.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import type { ContainerKillReason } from '../../domain/runtime/compute-pod-actions.js';
import { containerGracePeriodSeconds, minimumGracePeriodSeconds } from '../../domain/runtime/grace-period.js';
import { executePreStopHook, type HookDeps } from './lifecycle-hooks.js';
import { podRef } from './step-runner.js';
import { ContainerEventMessage, containerEvent } from '../../domain/runtime/container-events.js';
import { EventReason } from '../../domain/status-manager/event-reasons.js';
import type { TerminationOrdering } from './termination-ordering.js';

export interface ContainerToStop {
  id: string;
  name: string;
  /** Why (probe failures may carry their own grace period); undefined for pod termination. */
  reason?: ContainerKillReason | 'FailedPostStartHook';
  /** Why, in words, for the Killing event ("Container c failed liveness probe, will be restarted"). */
  message?: string;
}

export async function killContainer(
  deps: HookDeps,
  pod: Pod,
  spec: Container | undefined,
  target: ContainerToStop,
  podIPs: string[],
  gracePeriodOverride?: number,
  ordering?: TerminationOrdering,
): Promise<void> {
  const probeReason = target.reason === 'LivenessProbe' || target.reason === 'StartupProbe' ? target.reason : undefined;
  // The 2 s floor is applied after the hook, as Go does; compute the starting point without it.
  let grace = containerGracePeriodSeconds(pod, spec, probeReason, gracePeriodOverride, { floor: false });
  // Recorded before the preStop hook, as Go does; a container the pod's spec does not know (an
  // orphan's) gets no event, as in Go.
  if (spec) deps.recordEvent?.(containerEvent(pod, target.name, 'Normal', EventReason.KillingContainer, target.message || ContainerEventMessage.stopping(target.name)));
  if (spec?.lifecycle?.preStop && grace > 0) {
    grace -= await executePreStopHook(deps, pod, spec, target.id, grace, podIPs);
  }
  // A sidecar waits for the containers it serves to stop first.
  if (ordering && grace > 0) grace -= await ordering.waitForTurn(target.name, grace);
  grace = Math.max(grace, minimumGracePeriodSeconds);
  deps.log.info({ pod: podRef(pod), containerName: target.name, containerId: target.id, gracePeriod: grace, reason: target.reason }, 'Killing container with a grace period');
  try {
    await deps.cri.runtime.stopContainer(target.id, grace);
  } catch (err) {
    if (!(err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND')) throw err;
  }
  ordering?.containerTerminated(target.name);
}
