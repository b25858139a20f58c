/**
 * What a syncLoop decision asks of the actors around it. The machine carries them out in order,
 * each as one send, spawn, stop, emit or raise, so a decision is tested without any actor.
 */
import type { RuntimeEventNote } from '../pleg/view-shows-events.js';
import type { ProbeType } from '../probe/types.js';
import type { Container, Pod, PodCondition, PodStatus } from '../pod/types.js';
import type { Assignments, PodAssignment } from '../resource-managers/assignments.js';
import type { ObjectReference } from '../status-manager/event-aggregation.js';
import type { ResizeNote } from './pod-resize.js';
import type { KillRequester } from './state.js';

/** The eviction a kill carries: the pod ends Failed with this reason and message. */
export interface KillEviction { reason: string; message: string; condition?: PodCondition }

/** What a pod's worker is told (its machine's events of the same types). */
export type WorkerMessage =
  /** `pod` at its allocation; `resize` when the syncLoop weighed a resize for it. */
  | { type: 'pod.spec.updated'; pod: Pod; resize?: ResizeNote }
  | { type: 'pod.kill.requested'; gracePeriodSeconds: number; reason: string; eviction?: KillEviction }
  | { type: 'pod.sync.requested'; reason: string; runtimeEvents?: RuntimeEventNote[] }
  | { type: 'pod.status.reconciled'; pod: Pod }
  | { type: 'pod.runtime.unseen' }
  | { type: 'probe.result.changed'; container: string; probe: ProbeType; result: string; observedAtMs?: number };

/** What a container probe's worker is told. */
export type ProbeMessage =
  | { type: 'probe.pod.terminating' }
  | { type: 'probe.startup.succeeded'; containerId: string }
  | { type: 'probe.container.restarted'; containerId: string; containerStartedAtMs: number; podIP: string };

/** A container probe's worker to start for a running container. */
export interface ProbeStart {
  id: `probe:${string}`;
  podUid: string;
  podIP: string;
  container: Container;
  containerId: string;
  probe: ProbeType;
  containerStartedAtMs: number;
  /** The container's reference for the probe's events, when the pod's spec names it. */
  containerRef?: ObjectReference;
}

/** Emitted when admission refuses a pod: Go's rejectPod records a Warning event with these. */
export interface PodAdmissionRejected {
  type: 'pod.admission.rejected';
  pod: { namespace: string; name: string; uid: string };
  reason: string;
  message: string;
}

/** Emitted for Go's resize events (ResizeStarted, ResizeDeferred, ResizeInfeasible, ResizeCompleted, ResizeError). */
export interface PodResizeEvent {
  type: 'pod.resize.event';
  pod: { namespace: string; name: string; uid: string };
  eventType: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Emitted when a pod's worker or probe worker threw: the daemon logs it as an error. */
export interface PodActorFailed {
  type: 'pod.actor.failed';
  pod: { namespace: string; name: string; uid: string };
  actorId: string;
  message: string;
}

export type SyncLoopCommand =
  /** `assignment`: what the resource managers gave its containers at admission ({} for nothing). */
  | { kind: 'startWorker'; pod: Pod; assignment: PodAssignment }
  /** A worker that kills whatever of the pod the runtime runs, knowing no spec (an orphan, a crashed pod). */
  | { kind: 'startRuntimeOnlyWorker'; podUid: string }
  | { kind: 'tellWorker'; podUid: string; message: WorkerMessage }
  | { kind: 'startProbe'; probe: ProbeStart }
  | { kind: 'tellProbe'; id: `probe:${string}`; message: ProbeMessage }
  /** Stops a child: a pod's worker or a probe worker, by id. */
  | { kind: 'stop'; id: string }
  /** To the status manager (cluster mode only). */
  | { kind: 'reportStatus'; podUid: string; status: PodStatus }
  | { kind: 'emit'; event: PodAdmissionRejected | PodActorFailed | PodResizeEvent }
  /**
   * To the container deletor: the pod's exited containers but the newest `keep` of each name (null:
   * of every name); `containerIds`, with none kept: exactly these, known without reading the runtime.
   */
  | { kind: 'removeDeadContainers'; podUid: string; containerId: string | null; keep: number; containerIds?: string[] }
  /** To the sandbox deletor: the pod's stopped sandboxes no container names but the newest `keep`. */
  | { kind: 'removeDeadSandboxes'; podUid: string; keep: number }
  /** To the volume manager, when there is one. */
  | { kind: 'releaseVolumes'; podUid: string; removeDirectory: boolean }
  /** To the manager that asked for the kill (the eviction or the node shutdown manager), which waits for it. */
  | { kind: 'evictionFinished'; requester: KillRequester; podUid: string; evicted: boolean }
  /** To the container manager, when there is one: the cgroups of these pods stay. */
  | { kind: 'keepPodCgroups'; podUids: string[] }
  /** Handled as the syncLoop's next event: a source's pod that waited for its orphan to go, or for the Node to be read again. */
  | { kind: 'addDeferred'; pod: Pod; source: string; afterNodeRefresh?: boolean }
  /** To the node status: read the Node from the API server again. */
  | { kind: 'refreshNode' }
  /** To the resource managers' effects: every assignment now (their state files follow it, the CPU reconcile its shared pool). */
  | { kind: 'resourcesChanged'; assignments: Assignments }
  /** The syncLoop's own timer: deferred resizes weighed again after `delayMs`, replacing any timer set before (null: none). */
  | { kind: 'scheduleResizeRetry'; delayMs: number | null };

/** A decision: the state after the event and what it asks for, in order. */
export interface Decision<S> {
  state: S;
  commands: SyncLoopCommand[];
}
