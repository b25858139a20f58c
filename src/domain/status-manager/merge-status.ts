/**
 * The status the kubelet writes (Go's status_manager.go mergePodStatus): the conditions it owns
 * from its own status, every other condition as the API server has it now. Others (a readiness
 * gate's controller, the scheduler) set those through the status subresource; a kubelet status
 * built from an older view of the pod must not undo them. DisruptionTarget is shared: the kubelet's,
 * when it has one, replaces the API server's. The claim statuses others set are kept as the API
 * server has them. Pure.
 */
import { kubeletOwnedConditionTypes } from '../pod/conditions.js';
import { resizeConditionTypes } from '../resize/resize-conditions.js';
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
  if (!api) return ours;
  const before = mergedBefore.get(ours);
  if (before?.api === api) return before.merged;
  const merged = withOthersFields(api, ours.conditions ? mergeConditions(api, ours, ours.conditions) : ours);
  mergedBefore.set(ours, { api, merged });
  return merged;
}

/** Go's PodConditionByKubelet: the resize conditions are the kubelet's too, gone from the API when it drops them. */
const isKubelets = (type: string): boolean => kubeletOwnedConditionTypes.has(type) || resizeConditionTypes.has(type);

function mergeConditions(api: PodStatus, ours: PodStatus, mine: readonly PodCondition[]): PodStatus {
  const shared = mine.filter((c) => sharedConditionTypes.has(c.type));
  const conditions: PodCondition[] = [
    ...(api.conditions ?? []).filter((c) => !isKubelets(c.type) && !shared.some((s) => s.type === c.type)),
    ...mine.filter((c) => isKubelets(c.type)),
    ...shared,
  ];
  return { ...ours, conditions };
}

/**
 * The status fields the kubelet neither owns nor changes, as the API server has them: the patch
 * would otherwise remove them (it nulls what the last status had and ours lacks), and the API
 * server's NodeRestriction refuses a node that touches a pod's claim statuses.
 */
const OTHERS_FIELDS = ['resourceClaimStatuses', 'extendedResourceClaimStatus'] as const;

function withOthersFields(api: PodStatus, status: PodStatus): PodStatus {
  if (OTHERS_FIELDS.every((key) => api[key] === undefined)) return status;
  const kept: PodStatus = { ...status };
  for (const key of OTHERS_FIELDS) copyField(kept, api, key);
  return kept;
}

/** `to[key]` becomes `from[key]`, or goes when `from` has none. */
function copyField<K extends keyof PodStatus>(to: PodStatus, from: PodStatus, key: K): void {
  if (from[key] === undefined) delete to[key];
  else to[key] = from[key];
}
