/**
 * The two resize conditions the kubelet owns (Go's status manager keeps them beside the status):
 * PodResizePending (Deferred or Infeasible, with the allocation's message) and PodResizeInProgress
 * (from the allocation until the runtime runs what was allocated; reason Error with the runtime's
 * message when actuation failed). Each carries the generation it was set for, not the pod's latest.
 * A condition keeps its transition time while its reason stays; its probe time is that too, since a
 * condition that changes every sync would make every status new.
 */
import { rfc3339FromMs } from '../pod/timestamps.js';
import type { PodCondition } from '../pod/types.js';

export const POD_RESIZE_PENDING = 'PodResizePending';
export const POD_RESIZE_IN_PROGRESS = 'PodResizeInProgress';
export const resizeConditionTypes: ReadonlySet<string> = new Set([POD_RESIZE_PENDING, POD_RESIZE_IN_PROGRESS]);

export interface ResizeConditionState {
  reason?: string;
  message?: string;
  observedGeneration: number;
}

/** What the worker knows of its pod's resize: null where that condition is absent. */
export interface ResizeConditions {
  pending: ResizeConditionState | null;
  inProgress: ResizeConditionState | null;
}

export const NO_RESIZE: ResizeConditions = { pending: null, inProgress: null };

function condition(type: string, c: ResizeConditionState, previous: readonly PodCondition[], nowMs: number): PodCondition {
  const old = previous.find((p) => p.type === type);
  const since = old && (old.reason ?? '') === (c.reason ?? '') && old.lastTransitionTime ? old.lastTransitionTime : rfc3339FromMs(nowMs);
  return {
    type, observedGeneration: c.observedGeneration, status: 'True', lastProbeTime: since, lastTransitionTime: since,
    ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}),
  };
}

/** The conditions to report, pending first as Go lists them. */
export function resizeConditionsOf(resize: ResizeConditions, previous: readonly PodCondition[], nowMs: number): PodCondition[] {
  return [
    ...(resize.pending ? [condition(POD_RESIZE_PENDING, resize.pending, previous, nowMs)] : []),
    ...(resize.inProgress ? [condition(POD_RESIZE_IN_PROGRESS, resize.inProgress, previous, nowMs)] : []),
  ];
}
