/**
 * When the status manager may finish a graceful deletion (Go's status_manager.go canBeDeleted and
 * podDeletionSafety.PodCouldHaveRunningContainers): the pod has a deletionTimestamp, is not a
 * mirror pod, its phase is terminal, and no container of it is running. Then the kubelet deletes
 * it with grace 0 and a UID precondition. Pure.
 *
 * Differs from Go: Go also waits until the pod's volumes are unmounted and its cgroup is gone; we
 * have no volume manager, and the status is the only witness of the containers.
 */
import type { ContainerStatus, Pod, PodStatus } from '../pod/types.js';
import { CONFIG_MIRROR_ANNOTATION } from '../pod-config/types.js';

const isRunning = (s: ContainerStatus): boolean => s.state?.running !== undefined;

/** True when no container in the status is running. */
export function hasNoRunningContainers(status: PodStatus): boolean {
  return ![...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? []), ...(status.ephemeralContainerStatuses ?? [])].some(isRunning);
}

export function canBeDeleted(pod: Pod, status: PodStatus | null | undefined): boolean {
  if (!status) return false;
  if (pod.metadata.deletionTimestamp === undefined) return false;
  if (pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined) return false;
  if (status.phase !== 'Succeeded' && status.phase !== 'Failed') return false;
  return hasNoRunningContainers(status);
}
