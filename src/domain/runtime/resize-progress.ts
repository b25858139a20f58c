/**
 * Whether an allocated resize is still being applied (Go's IsPodResizeInProgress, container part):
 * some running regular container or sidecar runs with cpu or memory amounts other than those the
 * allocated pod gives it. Containers not running are ignored (they start at the allocated amounts),
 * as are ordinary init containers and ephemeral containers (never resized). A running container
 * without actuated amounts counts at zero, as in Go, so it is in progress until its first update.
 *
 * `actuated` is what the runtime manager's sync reports (SyncPodResult.actuated): the amounts by
 * container name the pod's containers were last started or updated with.
 */
import type { Pod } from '../pod/types.js';
import { resizableContainers } from '../resize/allocation.js';
import { desiredResourceAmounts, sameAmounts, zeroAmounts, type ResourceAmounts } from './actuated-resources.js';
import { findContainerStatus, type RuntimePodStatus } from './pod-status.js';

export function isPodResizeInProgress(allocatedPod: Pod, status: RuntimePodStatus, actuated: Readonly<Record<string, ResourceAmounts>> | undefined): boolean {
  return resizableContainers(allocatedPod).some((container) => {
    if (findContainerStatus(status, container.name)?.state !== 'running') return false;
    return !sameAmounts(desiredResourceAmounts(allocatedPod, container), actuated?.[container.name] ?? zeroAmounts);
  });
}
