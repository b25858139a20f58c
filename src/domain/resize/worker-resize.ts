/**
 * How a pod's worker keeps its resize conditions (Go's status manager calls, as the allocation
 * manager and SyncPod make them): the syncLoop's weighing sets or clears PodResizePending; a resize
 * just allocated starts PodResizeInProgress afresh at its generation (Go clears the condition, and
 * an earlier error with it, before setting it again); a sync that leaves the containers running
 * what is allocated ends it with ResizeCompleted, one whose resize failed sets its Error reason with
 * ResizeError (once per message), and one that finds them still apart keeps it, or starts it when
 * none was set (after a kubelet restart, say).
 */
import type { PodSyncOutcome } from '../pod/sync-outcome.js';
import type { Pod } from '../pod/types.js';
import type { ResizeNote } from '../sync-loop/pod-resize.js';
import type { ResizeConditions } from './resize-conditions.js';
import { resizeProgressMessage } from './resize-messages.js';

export function resizeAfterWeighing(current: ResizeConditions, note: ResizeNote): ResizeConditions {
  return {
    pending: note.pending,
    inProgress: note.startedGeneration !== undefined ? { observedGeneration: note.startedGeneration } : current.inProgress,
  };
}

export interface ResizeEventNote { eventType: 'Normal' | 'Warning'; reason: 'ResizeCompleted' | 'ResizeError'; message: string }

/** The conditions after a sync of the allocated pod, and the event to record, if any. */
export function resizeAfterSync(current: ResizeConditions, outcome: Pick<PodSyncOutcome, 'resize' | 'resizeInProgress' | 'podStatus'>, pod: Pod): { resize: ResizeConditions; event?: ResizeEventNote } {
  const generation = pod.metadata.generation ?? 0;
  if (outcome.resize?.status === 'failed') {
    const observedGeneration = current.inProgress?.observedGeneration ?? generation;
    const message = outcome.resize.message;
    const resize = { ...current, inProgress: { observedGeneration, reason: 'Error', message } };
    const same = current.inProgress?.reason === 'Error' && current.inProgress.message === message;
    return same ? { resize: current } : { resize, event: { eventType: 'Warning', reason: 'ResizeError', message: resizeProgressMessage('ResizeError', pod, observedGeneration, message) } };
  }
  if (outcome.resizeInProgress) return current.inProgress ? { resize: current } : { resize: { ...current, inProgress: { observedGeneration: generation } } };
  // Without a status read the sync cannot tell: the condition stays until one can.
  if (!current.inProgress || !outcome.podStatus) return { resize: current };
  return {
    resize: { ...current, inProgress: null },
    event: { eventType: 'Normal', reason: 'ResizeCompleted', message: resizeProgressMessage('ResizeCompleted', pod, current.inProgress.observedGeneration) },
  };
}
