/**
 * The pod worker: one actor per pod UID (`pod:<uid>`), the Go kubelet's podWorkerLoop
 * (pkg/kubelet/pod_workers.go) for one pod. It drives the pod through its life by invoking the
 * runtime manager and reports the pod's API status to its parent.
 *
 * States (Go's SyncPod → TerminatingPod → TerminatedPod, with the waits made explicit):
 * - `starting` (transient): a pod that arrives already deleted is terminated without a sync.
 * - `syncing`: syncPod({ pod, probes }) runs the plan (computePodActions) for the latest spec.
 * - `refreshingStatus`: getPodStatus reads the runtime's view; the API status is computed
 *   (generateAPIPodStatus) and sent as `pod.status.updated` when it changed. A sync hands back the
 *   pod's status as it left it (`podStatus`: the view it planned from when it changed nothing, else
 *   the runtime manager's read when it ended): that is taken instead. This state reads it after a
 *   sync that threw or whose read failed, a volume wait that ran out, and for the active deadline's
 *   check (a quiet pod's periodic resync reads the runtime once, a start twice). Then, in this order:
 *   a kill request → terminating; activeDeadlineSeconds passed → terminating (DeadlineExceeded);
 *   a terminal phase (Succeeded/Failed) → idle for good; an update or sync request that came in
 *   meanwhile → syncing again (coalesced: the latest spec wins); a failed sync → backingOff; else idle.
 * - `idle`: waits for an update, a sync request (PLEG, probe) or the resync interval (syncFrequency,
 *   60 s, jittered by up to 50 % with `resyncJitterFraction`, as wait.Jitter(d, 0.5)). The periodic
 *   resync plans from the last runtime view instead of reading the runtime again: had the runtime
 *   changed the pod since, the PLEG's next relist would have asked for a sync (Go's periodic syncs
 *   read the PLEG's pod cache, no runtime call either) — unless the PLEG had to drop this pod's
 *   events (`pod.runtime.unseen`): then that resync reads afresh too. A sync the PLEG asked for plans
 *   from the last view as well when that view already shows the relist's events (a container the
 *   relist saw start while the sync that started it still ran: view-shows-events.ts); with every
 *   volume mounted, that sync does not ask for the volumes to be set up again either, as the sync
 *   that made those changes did moments before. Every other sync reads afresh. A pod with
 *   activeDeadlineSeconds wakes at its deadline instead when that comes before the resync, and
 *   reads its status (Go checks every pod's deadline each second in its sync loop).
 * - `backingOff`: after a failed sync, waits backOffPeriod (10 s) before syncing again — or, when
 *   every failure was a back-off that reports its expiry (`retryAtMs`), until the earliest expiry
 *   (Go's MinBackoffExpiration); an update or sync request ends the wait early, as a pod update
 *   wakes a Go worker at once; an active deadline that comes first ends it as in `idle`.
 *   A sync whose image pull failed starts or doubles that image's pull back-off (Go's imagePuller
 *   keeps it per pod and image; here the worker does, from the sync's result, so that a replay
 *   covers it); every sync is handed when each image's back-off ends, and the runtime manager pulls
 *   no image before (ImagePullBackOff).
 * - `terminating`: killPod with the effective grace period (it only ever shrinks: a second kill with
 *   a shorter grace period restarts the kill with it); a failed kill is retried after backOffPeriod;
 *   then the final status (podIsTerminal). A kill the parent asked for ends in `terminated`, its
 *   status finished as Go's TerminatePod does (a container that never started is shown terminated,
 *   the phase Failed unless Succeeded), so a pod deleted before its image could be pulled leaves the
 *   API; one caused by activeDeadlineSeconds ends in `idle` with phase Failed, waiting for the deletion.
 * - `terminated`: the parent is told `pod.worker.terminated { podUid }` and stops the worker; until
 *   then every event is ignored, as in a final state. Not a final state: that would answer as
 *   `xstate.done.actor.pod:<uid>`, a type per pod that xstate memoises for good (answering-effect.ts).
 *
 * A runtime-only pod (input `runtimeOnly`: an orphan the runtime runs but no source has, Go's
 * UpdatePod with a RunningPod) has no spec: the worker starts terminating with the given kill
 * request and, once the kill succeeded, is terminated without reading or reporting a status, as
 * Go's syncTerminatingRuntimePod.
 *
 * A pod update carrying a deletionTimestamp (graceful deletion through the API) is a kill request
 * with the pod's deletionGracePeriodSeconds, as in Go's UpdatePod; a later update with a shorter
 * one shortens the kill.
 * A change of the pod's status alone in the API server (`pod.status.reconciled`, Go's
 * HandlePodReconcile) keeps it for the statuses to come, which carry the conditions others set; when
 * a readiness gate's condition changed what Ready should say, the status is recomputed and reported
 * at once from the last runtime view, without a sync (Go dispatches a sync for it).
 * Kill requests are never lost: from any state they are recorded, and a running sync or status read
 * is followed by terminating. Liveness/startup failures are handed to the next syncPod (so the
 * runtime manager restarts the container) and kept until a sync succeeds; readiness and startup
 * results change the status at once, without a sync.
 *
 * Differs from Go: a pod that reached Succeeded/Failed by itself stays idle (no more syncs) instead
 * of going through TerminatingPod/TerminatedPod — the runtime manager has already stopped its sandbox
 * in the sync that made it terminal, and the worker is kept until the pod is deleted, as Go keeps its
 * sync status. The back-off is not jittered (Go: up to +50 %), and the resync jitter is drawn once
 * per worker by its spawner (Go draws it at every requeue). A sync in flight is not cancelled by a
 * kill (Go cancels its context); the kill starts when it returns. Status is refreshed after a sync,
 * where Go computes it before the runtime sync from the PLEG cache. Go sets a pod's API-backed
 * volumes up again at every sync; a sync for relist events the last view shows does not.
 * Pure: no I/O, no clock reads; times come from the getPodStatus output (observedAtMs).
 */
import { and, assertEvent, assign, enqueueActions, fromPromise, setup } from 'xstate';
import { sendToSystem } from './system-sends.js';
import { NO_RESIZE, type ResizeConditions } from '../domain/resize/resize-conditions.js';
import { resizeAfterSync, resizeAfterWeighing } from '../domain/resize/worker-resize.js';
import type { PodResizeEvent } from '../domain/sync-loop/commands.js';
import type { ResizeNote } from '../domain/sync-loop/pod-resize.js';
import type { SerializedError } from '../domain/errors.js';
import { doneOutput, effectError } from './done-output.js';
import { activeDeadlineRemainingMs, isPastActiveDeadline } from '../domain/pod/active-deadline.js';
import { needToReconcilePodReadiness } from '../domain/pod/conditions.js';
import { DeadlineExceededMessage, DeadlineExceededReason, generateAPIPodStatus, isTerminalPhase } from '../domain/pod/status.js';
import { updateReasonCache, type PodSyncOutcome, type ReasonCache } from '../domain/pod/sync-outcome.js';
import { terminatedPodStatus } from '../domain/pod/terminated-status.js';
import { effectiveGracePeriodSeconds } from '../domain/pod/termination-grace.js';
import type { Pod, PodCondition, PodStatus } from '../domain/pod/types.js';
import type { PodAssignment } from '../domain/resource-managers/assignments.js';
import type { ProbeType } from '../domain/probe/types.js';
import type { ProbeFailures } from '../domain/runtime/compute-pod-actions.js';
import { isRestartableInitContainer } from '../domain/runtime/init-containers.js';
import type { RuntimePodStatus } from '../domain/runtime/pod-status.js';
import { imagePullBackoffPolicy, type BackoffPolicy } from '../domain/runtime/backoff.js';
import { imagePullBackOffEnds, recordImagePullFailures, type ImagePullBackOffs } from '../domain/runtime/image-pull-backoff.js';
import { viewShowsEvents, type RuntimeEventNote } from '../domain/pleg/view-shows-events.js';
import { attachAndMountTimeoutMessage, mountedVolumes, podAttachAndMountTimeoutMs, volumeProcessingFailedMessage, type VolumeProcessingError } from '../domain/volumes/pod-volumes.js';

export interface PodWorkerInput {
  pod: Pod;
  /** syncFrequency. Default 60 000. */
  resyncIntervalMs?: number;
  /** A number in [0, 1) drawn by the spawner: the resync waits interval × (1 + 0.5 × fraction). Default 0. */
  resyncJitterFraction?: number;
  /** backOffPeriod after a failed sync or kill. Default 10 000. */
  backOffPeriodMs?: number;
  hostIP?: string;
  hostIPs?: string[];
  /** The CRI runtime_name, the scheme of container ids in the status. Default "containerd". */
  runtimeName?: string;
  /** The pod is only in the runtime (an orphan, `pod` holds just its uid): kill it with this request. */
  runtimeOnly?: KillRequest;
  /**
   * A volume manager (system id `volumeManager`) mounts the pod's volumes: each sync first waits for
   * them (WaitForAttachAndMount). Default false: no volume is waited for (a worker under test alone).
   */
  waitForVolumes?: boolean;
  /** How long a sync waits for the volumes before it fails (podAttachAndMountTimeout). Default 120 000. */
  attachAndMountTimeoutMs?: number;
  /** What the resource managers gave the pod's containers at admission (exclusive CPUs, devices, NUMA memory). Default: nothing. */
  assignment?: PodAssignment;
  /** The image pull back-off after a failed pull. Default 10 s doubling to 300 s. */
  imagePullBackOff?: BackoffPolicy;
}

export interface SyncPodInput {
  pod: Pod;
  probes: ProbeFailures;
  /** What the resource managers gave its containers; absent: nothing. */
  assignment?: PodAssignment;
  /** The periodic resync's plan starts from this view instead of a fresh read. */
  podStatus?: RuntimePodStatus;
  /** When the pull back-off of each image that failed to pull ends; absent: none. */
  imagePullBackOffEnds?: Record<string, number>;
}
export interface KillPodInput { pod: Pod; gracePeriodSeconds: number }
export interface GetPodStatusInput { podUid: string }
/** The runtime's view of the pod and when it was read (the clock of the actor that read it). */
export interface PodStatusObservation { runtimeStatus: RuntimePodStatus; observedAtMs: number }

/** What an eviction sets on the pod's status: phase Failed with this reason and message, and the condition if any. */
export interface PodEviction { reason: string; message: string; condition?: PodCondition }

/** `eviction`: the kill is an eviction (the eviction manager's): the final status is Failed with its reason and message. */
export interface KillRequest { reason: string; gracePeriodSeconds?: number; eviction?: PodEviction }

export interface PodWorkerContext {
  podUid: string;
  /** An orphan: killed at once, no status computed or reported. */
  runtimeOnly: boolean;
  /** The latest spec: updates replace it at once, syncs use it when they start. */
  pod: Pod;
  resyncIntervalMs: number;
  resyncJitterFraction: number;
  backOffPeriodMs: number;
  hostIPs: string[];
  runtimeName: string | undefined;
  /** An update or sync request arrived since the current sync started. */
  pendingSync: boolean;
  /**
   * What the pending sync is for: the relist events that asked for it, or `read` once anything else
   * did (a spec update, a probe, the runtime back). Only events the last view already shows let the
   * sync plan from that view (view-shows-events.ts).
   */
  pendingFor: RuntimeEventNote[] | 'read';
  /** The sync starting plans from `runtimeStatus`: the periodic resync (see `idle`), or one for events that view shows. */
  resyncFromLastStatus: boolean;
  /**
   * The sync starting is one for events the last view shows, every volume mounted: the sync that
   * made those changes set the volumes up moments before, so this one does not ask again.
   */
  volumesJustSetUp: boolean;
  /** The runtime changed the pod since `runtimeStatus` without a sync request (PLEG events dropped). */
  runtimeViewStale: boolean;
  syncCount: number;
  lastSyncResult: PodSyncOutcome | null;
  lastSyncError: SerializedError | null;
  syncFailed: boolean;
  reasons: ReasonCache;
  readiness: Record<string, boolean>;
  startup: Record<string, boolean>;
  livenessFailed: string[];
  startupFailed: string[];
  /** The probe failures handed to the sync in flight (cleared once it succeeds). */
  probesInFlight: { livenessFailed: string[]; startupFailed: string[] };
  runtimeStatus: RuntimePodStatus | null;
  observedAtMs: number | null;
  apiStatus: PodStatus | null;
  /** The last status computation changed apiStatus (notifyParent sends it). */
  statusChanged: boolean;
  killRequest: KillRequest | null;
  deadlineExceeded: boolean;
  /** The grace period in force once terminating started. */
  gracePeriodSeconds: number | null;
  lastKillError: SerializedError | null;
  /** The pod has volumes a volume manager mounts (see PodWorkerInput.waitForVolumes). */
  hasVolumes: boolean;
  attachAndMountTimeoutMs: number;
  /** The volumes the volume manager last said are not mounted yet; null before it answered. */
  unmountedVolumes: string[] | null;
  /** Volumes it could not process, not yet failed a sync with (Go's pod errors, popped by the wait). */
  volumeProcessingErrors: VolumeProcessingError[];
  /** What the resource managers gave the pod's containers (see PodWorkerInput.assignment); null: nothing. */
  assignment: PodAssignment | null;
  imagePullBackOffPolicy: BackoffPolicy;
  /** The pod's image pull back-off, from its syncs' failed pulls (image-pull-backoff.ts). */
  imagePullBackOffs: ImagePullBackOffs;
  /** Its resize conditions: pending as the syncLoop weighed it, in progress from an allocation until actuated. */
  resize: ResizeConditions;
}

export type PodWorkerEvent =
  | { type: 'pod.spec.updated'; pod: Pod; resize?: ResizeNote }
  | { type: 'pod.kill.requested'; gracePeriodSeconds?: number; reason: string; eviction?: PodEviction }
  /** `runtimeEvents`: the relist's events of the pod that asked for the sync (the PLEG's requests). */
  | { type: 'pod.sync.requested'; reason: string; runtimeEvents?: RuntimeEventNote[] }
  /** Only the pod's status changed in the API server (a RECONCILE): someone else's conditions, say. */
  | { type: 'pod.status.reconciled'; pod: Pod }
  /** The PLEG dropped this pod's events: the next periodic resync must read the runtime. */
  | { type: 'pod.runtime.unseen' }
  /** From the volume manager: the pod's volumes not mounted yet (none: containers may start). */
  | { type: 'pod.volumes.changed'; unmounted: string[]; failedToProcess?: VolumeProcessingError[] }
  | { type: 'probe.result.changed'; container: string; probe: ProbeType; result: 'success' | 'failure' | string; observedAtMs?: number };

/** Sent to the parent when the computed status changed. */
export interface PodStatusUpdatedEvent { type: 'pod.status.updated'; podUid: string; status: PodStatus }

/**
 * Sent to the parent when the worker reached `terminated`: nothing of the pod runs any more.
 * `exitedContainerIds`: the exited containers of its last runtime view, when that view has none
 * running (it is the read after the kill), so that their removal need not read the runtime again.
 */
export interface PodWorkerTerminatedEvent { type: 'pod.worker.terminated'; podUid: string; exitedContainerIds?: string[] }

/** The effectful actor srcs: replay makes exactly these inert. */
export const POD_WORKER_EFFECTS = ['syncPod', 'killPod', 'getPodStatus'] as const;

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} was not provided`);
};

/** setTimeout's ceiling: a longer deadline timer fires early and the status read re-checks. */
const maxDelayMs = 2 ** 31 - 1;

function without(list: readonly string[], remove: readonly string[]): string[] {
  return list.filter((n) => !remove.includes(n));
}

function isSidecar(pod: Pod, container: string): boolean {
  return (pod.spec.initContainers ?? []).some((c) => c.name === container && isRestartableInitContainer(c));
}

/** The sidecars whose startup probe has passed: each holds the next init container back until then. */
function startedSidecars(pod: Pod, startup: Readonly<Record<string, boolean>>): Pick<ProbeFailures, 'startupSucceeded'> {
  const started = Object.keys(startup).filter((name) => startup[name] === true && isSidecar(pod, name));
  return started.length > 0 ? { startupSucceeded: started } : {};
}

function withName(list: readonly string[], name: string, present: boolean): string[] {
  const rest = list.filter((n) => n !== name);
  return present ? [...rest, name] : rest;
}

/**
 * How long to wait after a failed sync: backOffPeriod, unless the sync failed only on back-offs
 * whose expiry it reports (retryAtMs, e.g. CrashLoopBackOff): then until the earliest expiry,
 * within [0, resyncInterval], as Go's completeWork does with MinBackoffExpiration.
 */
function backOffDelayMs(context: PodWorkerContext): number {
  const retryAts = (context.lastSyncResult?.steps ?? []).filter((s) => !s.ok).map((s) => s.retryAtMs);
  if (context.lastSyncError !== null || retryAts.length === 0 || context.observedAtMs === null || retryAts.some((t) => t === undefined)) {
    return context.backOffPeriodMs;
  }
  const earliest = Math.min(...(retryAts as number[]));
  return Math.min(Math.max(earliest - context.observedAtMs, 0), context.resyncIntervalMs);
}

/** The resync interval, jittered by the fraction drawn for this worker (wait.Jitter(d, 0.5)). */
function resyncDelayMs(context: PodWorkerContext): number {
  return Math.round(context.resyncIntervalMs * (1 + 0.5 * context.resyncJitterFraction));
}

/** Until the pod's active deadline from its last runtime view; null for a pod without one, or ended. */
function activeDeadlineDelayMs(context: PodWorkerContext): number | null {
  if (!isActivePod(context) || context.observedAtMs === null) return null;
  const remaining = activeDeadlineRemainingMs(context.pod, context.apiStatus?.startTime, context.observedAtMs);
  return remaining === null ? null : Math.min(Math.max(remaining, 0), maxDelayMs);
}

/** A waiting pod's one timer: `otherMs`, or the active deadline when that comes first. */
function untilDeadlineOr(context: PodWorkerContext, otherMs: number): number {
  return Math.min(otherMs, activeDeadlineDelayMs(context) ?? otherMs);
}

/** The timer untilDeadlineOr(context, otherMs) armed fires for the active deadline. */
function deadlineComesFirst(context: PodWorkerContext, otherMs: number): boolean {
  const deadline = activeDeadlineDelayMs(context);
  return deadline !== null && deadline <= otherMs;
}

/** A pod with a deletionTimestamp is being deleted: terminate it with its deletion grace period. */
function deletionKillRequest(pod: Pod): { killRequest: KillRequest } | Record<string, never> {
  if (pod.metadata.deletionTimestamp === undefined) return {};
  const grace = pod.metadata.deletionGracePeriodSeconds;
  return { killRequest: { reason: 'deleted', ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}) } };
}

/** Not (yet) Succeeded or Failed, and not evicted: such a pod is synced; a terminal one never again. */
function isActivePod(context: PodWorkerContext): boolean {
  return !context.deadlineExceeded && !isTerminalPhase(context.apiStatus?.phase);
}

/** What forces the status to Failed: a passed active deadline, or a kill that is an eviction. */
function evictionOf(context: PodWorkerContext): { eviction?: PodEviction } {
  if (context.deadlineExceeded) return { eviction: { reason: DeadlineExceededReason, message: DeadlineExceededMessage } };
  return context.killRequest?.eviction ? { eviction: context.killRequest.eviction } : {};
}

/** The status for the last runtime view; null before the first read. */
function computeStatus(context: PodWorkerContext, nowMs: number, podIsTerminal: boolean): PodStatus | null {
  if (context.runtimeStatus === null) return null;
  return generateAPIPodStatus(context.pod, context.runtimeStatus, {
    readiness: context.readiness,
    startup: context.startup,
    nowMs,
    hostIPs: context.hostIPs,
    reasons: context.reasons,
    ...(context.apiStatus ? { previous: context.apiStatus } : {}),
    podIsTerminal,
    ...evictionOf(context),
    ...(context.runtimeName !== undefined ? { runtimeName: context.runtimeName } : {}),
    ...(context.lastSyncResult?.blocked ? { blocked: context.lastSyncResult.blocked } : {}),
    resize: context.resize,
  });
}

/** Keeps a runtime view and the API status it gives; `statusChanged` says whether that status is new. */
function storeObservation(context: PodWorkerContext, observation: PodStatusObservation | undefined, podIsTerminal: boolean): Partial<PodWorkerContext> {
  if (!observation) return { statusChanged: false };
  const next = { ...context, runtimeStatus: observation.runtimeStatus, observedAtMs: observation.observedAtMs };
  const status = computeStatus(next, observation.observedAtMs, podIsTerminal);
  const changed = status !== null && JSON.stringify(status) !== JSON.stringify(context.apiStatus);
  return { runtimeStatus: observation.runtimeStatus, observedAtMs: observation.observedAtMs, statusChanged: changed, ...(changed ? { apiStatus: status } : {}) };
}

/** The view's exited container ids, or undefined when there is no view or one still shows a container running. */
function exitedContainersOfStoppedView(view: RuntimePodStatus | null): string[] | undefined {
  if (view === null || view.containers.some((c) => c.state === 'running')) return undefined;
  return view.containers.filter((c) => c.state === 'exited').map((c) => c.id);
}

export const podWorkerMachine = setup({
  types: {
    context: {} as PodWorkerContext,
    events: {} as PodWorkerEvent,
    input: {} as PodWorkerInput,
  },
  actors: {
    syncPod: fromPromise<PodSyncOutcome, SyncPodInput>(notProvided('syncPod')),
    killPod: fromPromise<PodSyncOutcome, KillPodInput>(notProvided('killPod')),
    getPodStatus: fromPromise<PodStatusObservation, GetPodStatusInput>(notProvided('getPodStatus')),
  },
  guards: {
    hasKillRequest: ({ context }) => context.killRequest !== null,
    isRuntimeOnly: ({ context }) => context.runtimeOnly,
    // Only a pod still running can pass its deadline (once evicted it is Failed and stays so).
    isPastActiveDeadline: ({ context }) =>
      isActivePod(context) && context.observedAtMs !== null && isPastActiveDeadline(context.pod, context.apiStatus?.startTime, context.observedAtMs),
    deadlineBeforeResync: ({ context }) => deadlineComesFirst(context, resyncDelayMs(context)),
    deadlineBeforeBackOff: ({ context }) => deadlineComesFirst(context, backOffDelayMs(context)),
    isTerminal: ({ context }) => !isActivePod(context),
    isActive: ({ context }) => isActivePod(context),
    hasPendingSync: ({ context }) => context.pendingSync,
    volumeProcessingFailed: ({ context }) => context.hasVolumes && context.volumeProcessingErrors.length > 0,
    volumesReady: ({ context }) => !context.hasVolumes || (context.unmountedVolumes !== null && context.unmountedVolumes.length === 0),
    hasSyncFailed: ({ context }) => context.syncFailed,
    syncHandedBackStatus: ({ event }) => doneOutput<PodSyncOutcome | undefined>(event)?.podStatus !== undefined,
    isKillOk: ({ event }) => doneOutput<PodSyncOutcome | undefined>(event)?.ok === true,
    // A kill request or a pod update (a shorter deletionGracePeriodSeconds) that shrinks the grace period in force.
    shortensGracePeriod: ({ context, event }) => {
      if (context.gracePeriodSeconds === null) return false;
      const pod = event.type === 'pod.spec.updated' ? event.pod : context.pod;
      const requested = event.type === 'pod.kill.requested' ? event.gracePeriodSeconds : context.killRequest?.gracePeriodSeconds;
      return effectiveGracePeriodSeconds(pod, context.gracePeriodSeconds, requested) < context.gracePeriodSeconds;
    },
    // NeedToReconcilePodReadiness: a readiness gate's condition changed what Ready should say.
    isReadinessStale: ({ event }) => event.type === 'pod.status.reconciled' && needToReconcilePodReadiness(event.pod),
    isDeletionUpdate: ({ event }) => event.type === 'pod.spec.updated' && event.pod.metadata.deletionTimestamp !== undefined,
    // A failed liveness or startup probe restarts its container; a sidecar's passed startup probe lets
    // the next init container start. Both need a sync now.
    isProbeResultToSyncOn: ({ context, event }) =>
      isActivePod(context) && event.type === 'probe.result.changed' && event.probe !== 'readiness'
      && (event.result === 'failure' || (event.probe === 'startup' && event.result === 'success' && isSidecar(context.pod, event.container))),
  },
  actions: {
    /**
     * The one way out: the status just stored goes to the parent if it changed. A named action, so
     * a graph test can run the machine without a parent.
     */
    notifyParent: enqueueActions(({ context, enqueue }) => {
      if (!context.statusChanged || context.apiStatus === null) return;
      enqueue.sendParent({ type: 'pod.status.updated', podUid: context.podUid, status: context.apiStatus } satisfies PodStatusUpdatedEvent);
    }),
    reportTerminated: enqueueActions(({ context, enqueue }) => {
      const exited = exitedContainersOfStoppedView(context.runtimeStatus);
      enqueue.sendParent({ type: 'pod.worker.terminated', podUid: context.podUid, ...(exited ? { exitedContainerIds: exited } : {}) } satisfies PodWorkerTerminatedEvent);
    }),
    // The latest spec wins. A pod the API server marked deleted is a kill request (Go's UpdatePod).
    recordSpec: assign(({ context, event }) => {
      assertEvent(event, 'pod.spec.updated');
      return {
        pod: event.pod, pendingSync: true, pendingFor: 'read' as const, ...(context.killRequest === null ? deletionKillRequest(event.pod) : {}),
        ...(event.resize ? { resize: resizeAfterWeighing(context.resize, event.resize) } : {}),
      };
    }),
    recordSyncRequest: assign(({ context, event }) => {
      assertEvent(event, 'pod.sync.requested');
      const pendingFor = context.pendingFor === 'read' || event.runtimeEvents === undefined ? 'read' as const : [...context.pendingFor, ...event.runtimeEvents];
      return { pendingSync: true, pendingFor };
    }),
    /** The API server's status of the pod (its conditions set by others): the next status keeps them. */
    recordApiStatus: assign(({ context, event }) => {
      assertEvent(event, 'pod.status.reconciled');
      return { pod: { ...context.pod, ...(event.pod.status ? { status: event.pod.status } : {}) } };
    }),
    /** WaitForAttachAndMount: the volume manager mounts what is missing, sets up API content again, and answers. */
    askForVolumes: enqueueActions(({ context, enqueue, system }) => {
      if (!context.hasVolumes || context.volumesJustSetUp) return;
      // The worker waits for the answer: without a volume manager it would wait out the timeout for nothing.
      sendToSystem(enqueue, system, 'volumeManager', { type: 'volumes.pod.sync', pod: context.pod });
    }),
    recordVolumes: assign(({ event }) => {
      assertEvent(event, 'pod.volumes.changed');
      return { unmountedVolumes: event.unmounted, volumeProcessingErrors: event.failedToProcess ?? [] };
    }),
    /** The populator's errors end the wait at once: the sync fails with Go's error and the volume manager records the FailedMount event. */
    recordVolumeProcessingFailure: enqueueActions(({ context, enqueue, system }) => {
      const expected = mountedVolumes(context.pod).map((v) => v.name);
      const message = volumeProcessingFailedMessage(context.unmountedVolumes ?? expected, expected, context.volumeProcessingErrors);
      enqueue.assign({
        syncCount: context.syncCount + 1,
        resyncFromLastStatus: false,
        lastSyncError: { code: 'KLT_ERR_VOLUME_MOUNT', message, retryable: true },
        syncFailed: true,
        volumeProcessingErrors: [],
      });
      sendToSystem(enqueue, system, 'volumeManager', { type: 'volumes.pod.waitTimedOut', podUid: context.podUid, message });
    }),
    /** The wait ran out: the sync fails with Go's error, and the volume manager records the FailedMount event. */
    recordVolumeTimeout: enqueueActions(({ context, enqueue, system }) => {
      const message = attachAndMountTimeoutMessage(context.unmountedVolumes ?? mountedVolumes(context.pod).map((v) => v.name));
      enqueue.assign({
        syncCount: context.syncCount + 1,
        resyncFromLastStatus: false,
        lastSyncError: { code: 'KLT_ERR_VOLUME_MOUNT', message, retryable: true },
        syncFailed: true,
      });
      sendToSystem(enqueue, system, 'volumeManager', { type: 'volumes.pod.waitTimedOut', podUid: context.podUid, message });
    }),
    recordKillRequest: assign(({ context, event }) => {
      assertEvent(event, 'pod.kill.requested');
      const previous = context.killRequest?.gracePeriodSeconds;
      const requested = event.gracePeriodSeconds;
      // The shortest grace period asked for so far stands (Go never lengthens it).
      const gracePeriodSeconds = previous === undefined ? requested : requested === undefined ? previous : Math.min(previous, requested);
      // The first eviction stands: a later deletion does not undo the pod's Evicted status.
      const eviction = context.killRequest?.eviction ?? event.eviction;
      return { killRequest: { reason: event.reason, ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}), ...(eviction ? { eviction } : {}) } };
    }),
    recordProbeResult: assign(({ context, event }) => {
      assertEvent(event, 'probe.result.changed');
      // Only success makes a container ready or started, only failure restarts it (an unknown
      // result does neither, as Go's results.Unknown).
      const success = event.result === 'success';
      const failure = event.result === 'failure';
      switch (event.probe) {
        case 'readiness':
          return { readiness: { ...context.readiness, [event.container]: success } };
        case 'startup': {
          // A sidecar that has started lets the next init container (or the pod's containers) start: a sync.
          const resync = failure || (success && isSidecar(context.pod, event.container));
          return {
            startup: { ...context.startup, [event.container]: success },
            startupFailed: withName(context.startupFailed, event.container, failure),
            pendingSync: context.pendingSync || resync,
            ...(resync ? { pendingFor: 'read' as const } : {}),
          };
        }
        case 'liveness':
          return {
            livenessFailed: withName(context.livenessFailed, event.container, failure),
            pendingSync: context.pendingSync || failure,
            ...(failure ? { pendingFor: 'read' as const } : {}),
          };
        default:
          return {};
      }
    }),
    /** Readiness and startup change the status without a sync, from the last runtime view. */
    recomputeStatus: assign(({ context, event }) => {
      const nowMs = (event.type === 'probe.result.changed' ? event.observedAtMs : undefined) ?? context.observedAtMs;
      const status = nowMs === null ? null : computeStatus(context, nowMs, false);
      const changed = status !== null && JSON.stringify(status) !== JSON.stringify(context.apiStatus);
      return changed ? { apiStatus: status, statusChanged: true } : { statusChanged: false };
    }),
    startSync: assign(({ context }) => {
      const forEventsShown = context.pendingFor !== 'read' && !context.runtimeViewStale && viewShowsEvents(context.runtimeStatus, context.pendingFor);
      return {
        pendingSync: false,
        pendingFor: [],
        resyncFromLastStatus: context.resyncFromLastStatus || forEventsShown,
        volumesJustSetUp: forEventsShown && context.unmountedVolumes !== null && context.unmountedVolumes.length === 0,
        // This sync reads afresh, or plans from a view that was not stale.
        runtimeViewStale: false,
        probesInFlight: { livenessFailed: context.livenessFailed, startupFailed: context.startupFailed },
      };
    }),
    recordSyncResult: assign(({ context, event }) => {
      const output = doneOutput<PodSyncOutcome | undefined>(event);
      if (!output) return {};
      return {
        syncCount: context.syncCount + 1,
        resyncFromLastStatus: false,
        lastSyncResult: output,
        lastSyncError: null,
        syncFailed: !output.ok,
        reasons: updateReasonCache(context.reasons, output),
        imagePullBackOffs: recordImagePullFailures(context.imagePullBackOffs, output.steps, context.imagePullBackOffPolicy),
        // A successful sync acted on the probe failures it was given.
        ...(output.ok
          ? {
              livenessFailed: without(context.livenessFailed, context.probesInFlight.livenessFailed),
              startupFailed: without(context.startupFailed, context.probesInFlight.startupFailed),
            }
          : {}),
      };
    }),
    /** The resize conditions after the sync (worker-resize.ts); its ResizeCompleted or ResizeError goes to the parent, which records it. */
    recordResizeOutcome: enqueueActions(({ context, event, enqueue }) => {
      const output = doneOutput<PodSyncOutcome | undefined>(event);
      if (!output) return;
      const after = resizeAfterSync(context.resize, output, context.pod);
      if (after.resize !== context.resize) enqueue.assign({ resize: after.resize });
      if (after.event) {
        const pod = { namespace: context.pod.metadata.namespace ?? 'default', name: context.pod.metadata.name, uid: context.podUid };
        enqueue.sendParent({ type: 'pod.resize.event', pod, ...after.event } satisfies PodResizeEvent);
      }
    }),
    recordSyncError: assign(({ context, event }) => ({
      syncCount: context.syncCount + 1,
      resyncFromLastStatus: false,
      lastSyncError: effectError(event),
      syncFailed: true,
    })),
    recordStatusReadError: assign(({ event }) => ({ lastSyncError: effectError(event), syncFailed: true })),
    /** Store the runtime's view and the API status computed from it, noting whether it changed. */
    storeStatus: assign(({ context, event }, params: { podIsTerminal: boolean }) =>
      storeObservation(context, doneOutput<PodStatusObservation | undefined>(event), params.podIsTerminal)),
    /** A sync hands back the pod's status as it left it (PodSyncOutcome.podStatus): that is the pod's status now. */
    storeSyncStatus: assign(({ context, event }) => storeObservation(context, doneOutput<PodSyncOutcome | undefined>(event)?.podStatus, false)),
    /**
     * The pod is done (Go's TerminatePod): no container left waiting or running, a terminal phase,
     * so the status manager can finish its deletion even when no container ever started.
     */
    finishStatus: assign(({ context }) => {
      if (context.apiStatus === null) return {};
      const final = terminatedPodStatus(context.pod, context.apiStatus);
      return JSON.stringify(final) === JSON.stringify(context.apiStatus) ? {} : { apiStatus: final, statusChanged: true };
    }),
    markDeadlineExceeded: assign({ deadlineExceeded: true }),
    startTerminating: assign(({ context }) => ({
      gracePeriodSeconds: effectiveGracePeriodSeconds(context.pod, context.gracePeriodSeconds ?? undefined, context.killRequest?.gracePeriodSeconds),
    })),
    recordKillError: assign(({ event }) => {
      const output = doneOutput<PodSyncOutcome | undefined>(event);
      const failed = output?.steps.find((s) => !s.ok);
      return {
        lastKillError: output
          ? (failed?.error ?? { code: 'KLT_ERR_INTERNAL' as const, message: 'kill failed', retryable: true })
          : effectError(event),
      };
    }),
  },
  delays: {
    // A waiting pod arms one timer, not one for each reason to wake it: most pods have no deadline.
    resyncOrDeadline: ({ context }) => untilDeadlineOr(context, resyncDelayMs(context)),
    backOffOrDeadline: ({ context }) => untilDeadlineOr(context, backOffDelayMs(context)),
    backOffPeriod: ({ context }) => backOffDelayMs(context),
    attachAndMountTimeout: ({ context }) => context.attachAndMountTimeoutMs,
  },
}).createMachine({
  id: 'podWorker',
  context: ({ input }) => ({
    podUid: input.pod.metadata.uid,
    runtimeOnly: input.runtimeOnly !== undefined,
    pod: input.pod,
    resyncIntervalMs: input.resyncIntervalMs ?? 60_000,
    resyncJitterFraction: input.resyncJitterFraction ?? 0,
    backOffPeriodMs: input.backOffPeriodMs ?? 10_000,
    hostIPs: input.hostIPs ?? (input.hostIP ? [input.hostIP] : []),
    runtimeName: input.runtimeName,
    pendingSync: false,
    pendingFor: [],
    resyncFromLastStatus: false,
    volumesJustSetUp: false,
    runtimeViewStale: false,
    syncCount: 0,
    lastSyncResult: null,
    lastSyncError: null,
    syncFailed: false,
    reasons: {},
    readiness: {},
    startup: {},
    livenessFailed: [],
    startupFailed: [],
    probesInFlight: { livenessFailed: [], startupFailed: [] },
    runtimeStatus: null,
    observedAtMs: null,
    apiStatus: null,
    statusChanged: false,
    killRequest: input.runtimeOnly ?? deletionKillRequest(input.pod).killRequest ?? null,
    deadlineExceeded: false,
    gracePeriodSeconds: null,
    lastKillError: null,
    hasVolumes: (input.waitForVolumes ?? false) && input.runtimeOnly === undefined && mountedVolumes(input.pod).length > 0,
    attachAndMountTimeoutMs: input.attachAndMountTimeoutMs ?? podAttachAndMountTimeoutMs,
    unmountedVolumes: null,
    volumeProcessingErrors: [],
    assignment: input.assignment ?? null,
    imagePullBackOffPolicy: input.imagePullBackOff ?? imagePullBackoffPolicy,
    imagePullBackOffs: {},
    resize: NO_RESIZE,
  }),
  initial: 'starting',
  // Outside of idle and backingOff, requests are remembered and acted on when the work in flight ends.
  on: {
    'pod.spec.updated': { actions: 'recordSpec' },
    'pod.sync.requested': { actions: 'recordSyncRequest' },
    'pod.kill.requested': { actions: 'recordKillRequest' },
    'pod.runtime.unseen': { actions: assign({ runtimeViewStale: true }) },
    'pod.volumes.changed': { actions: 'recordVolumes' },
    'probe.result.changed': { actions: ['recordProbeResult', 'recomputeStatus', 'notifyParent'] },
    'pod.status.reconciled': [
      { guard: 'isReadinessStale', actions: ['recordApiStatus', 'recomputeStatus', 'notifyParent'] },
      { actions: 'recordApiStatus' },
    ],
  },
  states: {
    starting: {
      meta: { description: 'transient: a pod already being deleted goes straight to terminating, any other is synced' },
      always: [{ guard: 'hasKillRequest', target: 'terminating' }, { target: 'syncing' }],
    },
    syncing: {
      meta: { description: 'SyncPod: the volumes mounted first, then the runtime manager brings the pod in line with its latest spec' },
      entry: 'startSync',
      initial: 'askingForVolumes',
      states: {
        // Transient, so that a sync whose volumes are all mounted already (every sync after a pod's
        // first) goes on without arming and disarming the wait's timeout.
        askingForVolumes: {
          meta: { description: 'transient: asks the volume manager for what is missing; a pod with every volume mounted goes straight on' },
          entry: 'askForVolumes',
          always: [
            { guard: 'volumesReady', target: 'runtime' },
            { guard: 'volumeProcessingFailed', target: '#podWorker.refreshingStatus', actions: 'recordVolumeProcessingFailure' },
            { target: 'waitingForVolumes' },
          ],
        },
        waitingForVolumes: {
          meta: { description: 'WaitForAttachAndMount: the pod stays ContainerCreating until every volume is mounted (2 min at most)' },
          always: [
            { guard: 'volumesReady', target: 'runtime' },
            { guard: 'volumeProcessingFailed', target: '#podWorker.refreshingStatus', actions: 'recordVolumeProcessingFailure' },
          ],
          on: {
            'pod.kill.requested': { target: '#podWorker.terminating', actions: 'recordKillRequest' },
            'pod.spec.updated': [
              { guard: 'isDeletionUpdate', target: '#podWorker.terminating', actions: 'recordSpec' },
              { actions: 'recordSpec' },
            ],
          },
          after: { attachAndMountTimeout: { target: '#podWorker.refreshingStatus', actions: 'recordVolumeTimeout' } },
        },
        runtime: {
          meta: { description: "the runtime manager's SyncPod: sandbox, init containers, containers" },
          invoke: {
            id: 'syncPod',
            src: 'syncPod',
            input: ({ context }) => ({
              pod: context.pod,
              probes: {
                ...(context.livenessFailed.length > 0 ? { livenessFailed: context.livenessFailed } : {}),
                ...(context.startupFailed.length > 0 ? { startupFailed: context.startupFailed } : {}),
                ...startedSidecars(context.pod, context.startup),
              },
              ...(context.resyncFromLastStatus && context.runtimeStatus !== null ? { podStatus: context.runtimeStatus } : {}),
              ...(context.assignment ? { assignment: context.assignment } : {}),
              ...(Object.keys(context.imagePullBackOffs).length > 0 ? { imagePullBackOffEnds: imagePullBackOffEnds(context.imagePullBackOffs) } : {}),
            }),
            onDone: [
              // A kill that came in during the sync does not wait for a status read.
              { guard: 'hasKillRequest', target: '#podWorker.terminating', actions: 'recordSyncResult' },
              { guard: 'syncHandedBackStatus', target: '#podWorker.decidingNext', actions: ['recordSyncResult', 'recordResizeOutcome', 'storeSyncStatus', 'notifyParent'] },
              { target: '#podWorker.refreshingStatus', actions: ['recordSyncResult', 'recordResizeOutcome'] },
            ],
            onError: [
              { guard: 'hasKillRequest', target: '#podWorker.terminating', actions: 'recordSyncError' },
              { target: '#podWorker.refreshingStatus', actions: 'recordSyncError' },
            ],
          },
        },
      },
    },
    refreshingStatus: {
      meta: { description: "reads the runtime's view of the pod and reports its API status when it changed" },
      invoke: {
        id: 'getPodStatus',
        src: 'getPodStatus',
        input: ({ context }) => ({ podUid: context.podUid }),
        onDone: { target: 'decidingNext', actions: [{ type: 'storeStatus', params: { podIsTerminal: false } }, 'notifyParent'] },
        onError: { target: 'decidingNext', actions: 'recordStatusReadError' },
      },
    },
    decidingNext: {
      meta: { description: 'transient: picks what follows a sync from the kill request, deadline, phase and pending work' },
      always: [
        { guard: 'hasKillRequest', target: 'terminating' },
        { guard: 'isPastActiveDeadline', target: 'terminating', actions: 'markDeadlineExceeded' },
        { guard: 'isTerminal', target: 'idle' },
        { guard: 'hasPendingSync', target: 'syncing' },
        { guard: 'hasSyncFailed', target: 'backingOff' },
        { target: 'idle' },
      ],
    },
    idle: {
      meta: { description: 'synced: waits for an update, a sync request or the resync interval (a terminal pod waits for its deletion)' },
      on: {
        'pod.spec.updated': [
          { guard: 'isDeletionUpdate', target: 'terminating', actions: 'recordSpec' },
          { guard: 'isActive', target: 'syncing', actions: 'recordSpec' },
        ],
        'pod.sync.requested': { guard: 'isActive', target: 'syncing', actions: 'recordSyncRequest' },
        'pod.kill.requested': { target: 'terminating', actions: 'recordKillRequest' },
        'probe.result.changed': [
          { guard: 'isProbeResultToSyncOn', target: 'syncing', actions: ['recordProbeResult', 'recomputeStatus', 'notifyParent'] },
          { actions: ['recordProbeResult', 'recomputeStatus', 'notifyParent'] },
        ],
      },
      after: {
        resyncOrDeadline: [
          { guard: 'deadlineBeforeResync', target: 'refreshingStatus' },
          { guard: 'isActive', target: 'syncing', actions: assign(({ context }) => ({ resyncFromLastStatus: !context.runtimeViewStale })) },
        ],
      },
    },
    backingOff: {
      meta: { description: 'the last sync failed: waits backOffPeriod before the next one' },
      on: {
        'pod.spec.updated': [
          { guard: 'isDeletionUpdate', target: 'terminating', actions: 'recordSpec' },
          { target: 'syncing', actions: 'recordSpec' },
        ],
        'pod.sync.requested': { target: 'syncing' },
        'pod.kill.requested': { target: 'terminating', actions: 'recordKillRequest' },
        'probe.result.changed': [
          { guard: 'isProbeResultToSyncOn', target: 'syncing', actions: ['recordProbeResult', 'recomputeStatus', 'notifyParent'] },
          { actions: ['recordProbeResult', 'recomputeStatus', 'notifyParent'] },
        ],
      },
      after: {
        backOffOrDeadline: [{ guard: 'deadlineBeforeBackOff', target: 'refreshingStatus' }, { target: 'syncing' }],
      },
    },
    terminating: {
      meta: { description: "SyncTerminatingPod: stops the pod's containers and sandbox within the grace period" },
      entry: 'startTerminating',
      initial: 'killing',
      on: {
        'pod.kill.requested': [
          { guard: 'shortensGracePeriod', target: '.killing', reenter: true, actions: ['recordKillRequest', 'startTerminating'] },
          { actions: 'recordKillRequest' },
        ],
        // Updates no longer start syncs (the pod is going away), but a deletion is noted and a
        // shorter deletion grace period shortens the kill.
        'pod.spec.updated': [
          { guard: 'shortensGracePeriod', target: '.killing', reenter: true, actions: ['recordSpec', 'startTerminating'] },
          { actions: 'recordSpec' },
        ],
        'pod.sync.requested': {},
      },
      states: {
        killing: {
          invoke: {
            id: 'killPod',
            src: 'killPod',
            input: ({ context }) => ({ pod: context.pod, gracePeriodSeconds: context.gracePeriodSeconds ?? 1 }),
            onDone: [
              // Nothing to report for a pod no source has: done once its containers are stopped.
              { guard: and(['isKillOk', 'isRuntimeOnly']), target: '#podWorker.terminated' },
              { guard: 'isKillOk', target: 'recordingStatus' },
              { target: 'retrying', actions: 'recordKillError' },
            ],
            onError: { target: 'retrying', actions: 'recordKillError' },
          },
        },
        retrying: {
          meta: { description: 'the kill failed: tries again after backOffPeriod' },
          after: { backOffPeriod: { target: 'killing' } },
        },
        recordingStatus: {
          meta: { description: 'the final status, with every container stopped' },
          invoke: {
            id: 'getPodStatus',
            src: 'getPodStatus',
            input: ({ context }) => ({ podUid: context.podUid }),
            onDone: [
              { guard: 'hasKillRequest', target: '#podWorker.terminated', actions: [{ type: 'storeStatus', params: { podIsTerminal: true } }, 'finishStatus', 'notifyParent'] },
              { target: '#podWorker.idle', actions: [{ type: 'storeStatus', params: { podIsTerminal: true } }, 'notifyParent'] },
            ],
            onError: [
              { guard: 'hasKillRequest', target: '#podWorker.terminated', actions: [assign({ statusChanged: false }), 'finishStatus', 'notifyParent'] },
              { target: '#podWorker.idle' },
            ],
          },
        },
      },
    },
    terminated: {
      meta: { description: 'TerminatedPod: nothing of the pod runs any more; the parent forgets the worker' },
      entry: 'reportTerminated',
      // Taken here, every event goes no further: the root's handlers would record or report more.
      on: { '*': {} },
    },
  },
});
