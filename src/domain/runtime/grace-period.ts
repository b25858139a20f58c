/**
 * How long a container is given to stop (kuberuntime_container.go setTerminationGracePeriod and
 * killContainer): the caller's override (pod termination, eviction) if any, else the pod's deletion
 * grace period if it is being deleted, else a failed probe's own terminationGracePeriodSeconds, else
 * the pod's terminationGracePeriodSeconds, else 2 s. Never less than 2 s, override included, as in
 * current Go ("always give containers a minimal shutdown window to avoid unnecessary SIGKILLs").
 */
import type { Container, Pod } from '../pod/types.js';
import type { ContainerKillReason } from './compute-pod-actions.js';

export const minimumGracePeriodSeconds = 2;

export function containerGracePeriodSeconds(
  pod: Pod,
  container: Container | undefined,
  reason?: ContainerKillReason,
  override?: number,
  /** floor: false leaves out the 2 s minimum, for a caller that runs the preStop hook first and applies it after. */
  opts: { floor?: boolean } = {},
): number {
  let grace = minimumGracePeriodSeconds;
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) {
    grace = pod.metadata.deletionGracePeriodSeconds;
  } else if (pod.spec.terminationGracePeriodSeconds !== undefined) {
    const probe = reason === 'LivenessProbe' ? container?.livenessProbe : reason === 'StartupProbe' ? container?.startupProbe : undefined;
    grace = probe?.terminationGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds;
  }
  if (override !== undefined) grace = override;
  return opts.floor === false ? grace : Math.max(grace, minimumGracePeriodSeconds);
}
