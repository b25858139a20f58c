/**
 * Container restart rules (ContainerRestartRules, beta and on in v1.35): whether one container is
 * restarted after it exits, as Go's pkg/api/v1/pod ContainerShouldRestart decides it. Every place
 * the Go kubelet gates on the feature (computePodActions, the init containers, the pod phase) asks
 * this one question, so they cannot disagree.
 *
 * A container's own `restartPolicy` overrides the pod's. Its `restartPolicyRules` are read only when
 * it has one (the API server refuses rules without it): the first rule whose exit-code condition
 * matches decides, and a rule with an action kubelet-ts does not know (RestartAllContainers, behind
 * its own gate that is off) falls through to the container's policy, as Go does with that gate off.
 * Pure.
 */
import type { Container, ContainerRestartRule, PodSpec } from './types.js';

/** The first rule whose exit-code condition holds for this exit code (FindMatchingContainerRestartRule). */
export function findMatchingRestartRule(container: Pick<Container, 'restartPolicyRules'>, exitCode: number): ContainerRestartRule | undefined {
  return (container.restartPolicyRules ?? []).find((rule) => {
    if (!rule.exitCodes) return false;
    const listed = (rule.exitCodes.values ?? []).includes(exitCode);
    if (rule.exitCodes.operator === 'In') return listed;
    if (rule.exitCodes.operator === 'NotIn') return !listed;
    return false; // an operator this version does not know matches nothing
  });
}

/** Whether a container that exited with this code is to be started again (ContainerShouldRestart). */
export function containerShouldRestart(container: Pick<Container, 'restartPolicy' | 'restartPolicyRules'>, spec: Pick<PodSpec, 'restartPolicy'>, exitCode: number): boolean {
  if (container.restartPolicy !== undefined) {
    if (findMatchingRestartRule(container, exitCode)?.action === 'Restart') return true;
    switch (container.restartPolicy) {
      case 'Always': return true;
      case 'OnFailure': return exitCode !== 0;
      case 'Never': return false;
      default: break; // unknown value: the pod's policy decides
    }
  }
  switch (spec.restartPolicy) {
    case 'OnFailure': return exitCode !== 0;
    case 'Never': return false;
    default: return true; // Always, and the API default
  }
}

/**
 * For a container that is still running or whose state is unknown, so there is no exit code for the
 * rules: its own policy if it has one, else the pod's (the probe-failure and unknown-state paths of
 * computePodActions).
 */
export function restartsWithoutExitCode(container: Pick<Container, 'restartPolicy'>, spec: Pick<PodSpec, 'restartPolicy'>): boolean {
  if (container.restartPolicy !== undefined) return container.restartPolicy !== 'Never';
  return (spec.restartPolicy ?? 'Always') !== 'Never';
}
