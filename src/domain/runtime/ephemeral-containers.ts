/**
 * Ephemeral containers (`kubectl debug`) in the Go kubelet's kuberuntime: computePodActions'
 * EphemeralContainersToStart, and startContainer's target (startSpec.getTargetID). Pure.
 *
 * - One is started once, in the pod's existing sandbox, as soon as the runtime has no container of
 *   its name: never restarted, whatever it exited with or the pod's restart policy, and not carried
 *   to a new sandbox (the sandbox-change path starts only init and regular containers).
 * - With targetContainerName, it joins the process namespace of the target's newest instance; a
 *   target the runtime does not know fails the start (CreateContainerConfigError in Go).
 */
import type { EphemeralContainer, Pod } from '../pod/types.js';
import type { CriNamespaceOption } from './cri-config.js';
import { findContainerStatus, type RuntimePodStatus } from './pod-status.js';

/** Names of the ephemeral containers to start, in spec order: those the runtime has not run yet. */
export function ephemeralContainersToStart(pod: Pod, status: RuntimePodStatus): string[] {
  return (pod.spec.ephemeralContainers ?? []).filter((c) => findContainerStatus(status, c.name) === undefined).map((c) => c.name);
}

export function findEphemeralContainer(pod: Pod, name: string): EphemeralContainer | undefined {
  return pod.spec.ephemeralContainers?.find((c) => c.name === name);
}

/** The target's runtime id; undefined without a target; an error text when the target is unknown. */
export function namespaceTargetId(container: EphemeralContainer, status: RuntimePodStatus): { id?: string; error?: string } {
  const target = container.targetContainerName;
  if (target === undefined || target === '') return {};
  const found = findContainerStatus(status, target);
  return found ? { id: found.id } : { error: `unable to find target container ${target}` };
}

/**
 * The target's PID namespace replaces the container's own (Go's generateLinuxContainerConfig); a
 * pod that shares its process namespace, or the node's, keeps that one.
 */
export function withNamespaceTarget(options: CriNamespaceOption, targetId: string | undefined): CriNamespaceOption {
  if (targetId === undefined || options.pid !== 'CONTAINER') return options;
  return { ...options, pid: 'TARGET', target_id: targetId };
}
