/**
 * The status the kubelet writes (Go's status_manager.go mergePodStatus): the conditions it owns
 * from its own status, every other condition as the API server has it now. Others (a readiness
 * gate's controller, the scheduler) set those through the status subresource; a kubelet status
 * built from an older view of the pod must not undo them. DisruptionTarget is shared: the kubelet's,
 * when it has one, replaces the API server's. Pure.
 */
import { kubeletOwnedConditionTypes } from '../pod/conditions.js';
import type { PodCondition, PodStatus } from '../pod/types.js';

/** PodConditionsSharedByKubelet: set by the kubelet and by others. */
const sharedConditionTypes: ReadonlySet<string> = new Set(['DisruptionTarget']);

/**
 * The last merge made of each status of ours, and the API server's status it was made with. The
 * 10 s resync merges the very same two for every pod of a quiet node (statuses are replaced, never
 * changed in place): handing back the same object costs no copy, and lets the comparison that
 * follows (isStatusReflected) remember its answer.
 */
const mergedBefore = new WeakMap<PodStatus, { api: PodStatus; merged: PodStatus }>();

export function mergePodStatus(api: PodStatus | null | undefined, ours: PodStatus): PodStatus {
  // A status without conditions (a rejected pod's) leaves the API server's list alone.
  if (!api || !ours.conditions) return ours;
  const before = mergedBefore.get(ours);
  if (before?.api === api) return before.merged;
  const merged = merge(api, ours, ours.conditions);
  mergedBefore.set(ours, { api, merged });
  return merged;
}

function merge(api: PodStatus, ours: PodStatus, mine: readonly PodCondition[]): PodStatus {
  const shared = mine.filter((c) => sharedConditionTypes.has(c.type));
  const conditions: PodCondition[] = [
    ...(api.conditions ?? []).filter((c) => !kubeletOwnedConditionTypes.has(c.type) && !shared.some((s) => s.type === c.type)),
    ...mine.filter((c) => kubeletOwnedConditionTypes.has(c.type)),
    ...shared,
  ];
  return { ...ours, conditions };
}
