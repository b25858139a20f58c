/**
 * Resizes in the syncLoop (Go's allocation manager as HandlePodUpdates and RetryPendingResizes drive
 * it): a pod update whose resources differ from the allocation is weighed (resize/resize-decision.ts)
 * against what the other active pods hold at their allocations. Allocated: the allocation follows
 * the spec, is persisted with the resource managers' shares, and the worker is handed the pod as
 * asked, with `ResizeStarted`. Pending: the worker is handed the pod at its allocation, and the
 * PodResizePending condition with `ResizeDeferred` or `ResizeInfeasible` when its reason or
 * generation changed. Deferred resizes are weighed again, in Go's order (resize/retry-order.ts), when
 * a pod's worker ends, after a pod update that resized, and every RESIZE_RETRY_PERIOD_MS since the
 * last time while any is deferred (Go's retry triggers and ticker).
 */
import { isActiveForAdmission } from '../pod/lifecycle.js';
import { usageOf } from '../pod/node-usage.js';
import type { Pod } from '../pod/types.js';
import { allocatedPod, allocationFromPod, specMatchesAllocation, type PodAllocation } from '../resize/allocation.js';
import { allocationOf, withPodAllocation } from '../resize/allocation-assignments.js';
import { decideResize, type ResizePendingReason } from '../resize/resize-decision.js';
import { resizePendingMessage, resizeProgressMessage } from '../resize/resize-messages.js';
import { RESIZE_RETRY_PERIOD_MS, resizeRetryOrder } from '../resize/retry-order.js';
import type { SyncLoopCommand } from './commands.js';
import type { PodEntry, SyncLoopState } from './state.js';

/** The PodResizePending condition the worker reports, with the generation it was decided for. */
export interface PendingResize {
  reason: ResizePendingReason;
  message: string;
  observedGeneration: number;
}

/** A pending resize as the syncLoop keeps it: `since` orders the deferred ones, the longest waiting first. */
export interface KeptPendingResize extends PendingResize {
  since: number;
}

/** What a worker is told of resizes with a new spec: the pending condition (null: none), and the generation of a resize just allocated. */
export interface ResizeNote {
  pending: PendingResize | null;
  startedGeneration?: number;
}

type ResizeState = Pick<SyncLoopState, 'pods' | 'resources' | 'node' | 'inventory'>;

const podRefOf = (pod: Pod) => ({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid ?? '' });

/** The allocation a pod holds now: the kept one, else its previous spec's (a pod never resized). */
export function currentAllocation(state: Pick<SyncLoopState, 'resources'>, uid: string, previous: Pod): PodAllocation {
  return allocationOf(state.resources[uid]) ?? allocationFromPod(previous);
}

/** The pods that count against a resize, each at its allocation. */
function othersAtAllocation(state: ResizeState, uid: string) {
  return usageOf(Object.entries(state.pods)
    .filter(([other, e]) => other !== uid && isActiveForAdmission(e.lifecycle, e.status))
    .map(([other, e]) => allocatedPod(e.pod, allocationOf(state.resources[other]))));
}

export interface ResizeOutcome<S> {
  state: S;
  commands: SyncLoopCommand[];
  /** The pod the worker runs: the spec at its allocation. */
  workerPod: Pod;
  note: ResizeNote;
}

/**
 * A new spec for an active pod whose allocation was `allocation`: the resize it asks weighed, the
 * pod's entry (already holding `pod`) updated with its pending condition, the allocation kept.
 */
export function weighResize<S extends ResizeState>(state: S, uid: string, pod: Pod, allocation: PodAllocation): ResizeOutcome<S> {
  const entry = state.pods[uid] as PodEntry;
  const generation = pod.metadata.generation ?? 0;
  // Most updates resize nothing: the other pods' usage is counted only for one that does.
  const decision = specMatchesAllocation(pod, allocation) ? { kind: 'unchanged' as const } : decideResize(pod, allocation, {
    node: state.node,
    others: othersAtAllocation(state, uid),
    cpuManagerStatic: state.inventory.cpu !== null,
    memoryManagerStatic: state.inventory.memory !== null,
  });
  const commands: SyncLoopCommand[] = [];
  const { resizePending: previous, ...rest } = entry;
  switch (decision.kind) {
    case 'unchanged':
      return { state: previous ? { ...state, pods: { ...state.pods, [uid]: rest } } : state, commands, workerPod: pod, note: { pending: null } };
    case 'allocated': {
      const resources = withPodAllocation(state.resources, uid, decision.allocation);
      commands.push(
        { kind: 'resourcesChanged', assignments: resources },
        { kind: 'emit', event: { type: 'pod.resize.event', pod: podRefOf(pod), eventType: 'Normal', reason: 'ResizeStarted', message: resizeProgressMessage('ResizeStarted', pod, generation) } },
      );
      return { state: { ...state, resources, pods: { ...state.pods, [uid]: rest } }, commands, workerPod: pod, note: { pending: null, startedGeneration: generation } };
    }
    case 'pending': {
      const pending: PendingResize = { reason: decision.reason, message: decision.message, observedGeneration: generation };
      const since = previous?.since ?? nextPendingSince(state);
      let resources = state.resources;
      if (allocationOf(resources[uid]) === undefined) {
        // The spec now trails the allocation: keep the allocation, so that a restart does not take the spec for it.
        resources = withPodAllocation(resources, uid, allocation);
        commands.push({ kind: 'resourcesChanged', assignments: resources });
      }
      if (!previous || previous.reason !== pending.reason || previous.observedGeneration !== generation) {
        commands.push({ kind: 'emit', event: { type: 'pod.resize.event', pod: podRefOf(pod), eventType: 'Warning', reason: decision.reason === 'Deferred' ? 'ResizeDeferred' : 'ResizeInfeasible', message: resizePendingMessage(pod, decision.reason, decision.message, generation) } });
      }
      return { state: { ...state, resources, pods: { ...state.pods, [uid]: { ...rest, resizePending: { ...pending, since } } } }, commands, workerPod: allocatedPod(pod, allocation), note: { pending } };
    }
  }
}

/** One more than any pending resize's `since`: a new one waits behind them. */
function nextPendingSince(state: ResizeState): number {
  return Object.values(state.pods).reduce((max, e) => Math.max(max, e.resizePending ? e.resizePending.since + 1 : 0), 0);
}

/**
 * Each deferred resize weighed again in Go's order, its worker told when it changed, and the next
 * periodic retry set, or cancelled once none is deferred any more. With none deferred, nothing: a
 * timer left from before finds none when it fires, and an idle node sets no timer.
 */
export function retryDeferredResizes<S extends ResizeState>(current: S): { state: S; commands: SyncLoopCommand[] } {
  let state = current;
  const commands: SyncLoopCommand[] = [];
  const deferred = resizeRetryOrder(Object.entries(state.pods)
    .filter(([, e]) => e.lifecycle === 'active' && e.resizePending?.reason === 'Deferred')
    .map(([uid, e]) => ({ uid, pod: e.pod, allocated: allocatedPod(e.pod, currentAllocation(state, uid, e.pod)), since: e.resizePending?.since ?? 0 })));
  for (const uid of deferred) {
    const entry = state.pods[uid] as PodEntry;
    const outcome = weighResize(state, uid, entry.pod, currentAllocation(state, uid, entry.pod));
    state = outcome.state;
    commands.push(...outcome.commands);
    if (outcome.note.pending?.reason !== 'Deferred' || outcome.note.pending.message !== entry.resizePending?.message) {
      commands.push({ kind: 'tellWorker', podUid: uid, message: { type: 'pod.spec.updated', pod: outcome.workerPod, resize: outcome.note } });
    }
  }
  if (deferred.length === 0) return { state, commands };
  const stillDeferred = Object.values(state.pods).some((e) => e.lifecycle === 'active' && e.resizePending?.reason === 'Deferred');
  commands.push({ kind: 'scheduleResizeRetry', delayMs: stillDeferred ? RESIZE_RETRY_PERIOD_MS : null });
  return { state, commands };
}
