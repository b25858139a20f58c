/**
 * How a pod's worker keeps its resize conditions (Go's status manager calls, as the allocation
 * manager and SyncPod make them): the syncLoop's weighing sets or clears PodResizePending; a resize
 * just allocated starts PodResizeInProgress afresh at its generation (Go clears the condition, and
 * an earlier error with it, before setting it again).
 */
import type { ResizeNote } from '../sync-loop/pod-resize.js';
import type { ResizeConditions } from './resize-conditions.js';

export function resizeAfterWeighing(current: ResizeConditions, note: ResizeNote): ResizeConditions {
  return {
    pending: note.pending,
    inProgress: note.startedGeneration !== undefined ? { observedGeneration: note.startedGeneration } : current.inProgress,
  };
}
