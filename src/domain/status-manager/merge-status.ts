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

export function mergePodStatus(api: PodStatus | null | undefined, ours: PodStatus): PodStatus {
  // A status without conditions (a rejected pod's) leaves the API server's list alone.
  if (!api || !ours.conditions) return ours;
  const mine = ours.conditions ?? [];
  const shared = mine.filter((c) => sharedConditionTypes.has(c.type));
  const conditions: PodCondition[] = [
    ...(api.conditions ?? []).filter((c) => !kubeletOwnedConditionTypes.has(c.type) && !shared.some((s) => s.type === c.type)),
    ...mine.filter((c) => kubeletOwnedConditionTypes.has(c.type)),
    ...shared,
  ];
  return { ...ours, conditions };
}
