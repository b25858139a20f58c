/**
 * The syncLoop (pkg/kubelet/kubelet.go syncLoop / syncLoopIteration): the kubelet's dispatcher.
 *
 * Contract:
 * - It owns the pod config (`podConfig`, its sources), the PLEG (`pleg`) and one pod worker per pod
 *   UID (`pod:<uid>`), and one probe worker per container probe (`probe:<uid>:<container>:<type>`).
 * - configCh → `pod.config.updated`: ADD admits the pod (HandlePodAdditions' canAdmitPod: the
 *   predicate checks of domain/pod/admission.ts against the `node` input and the pods that count
 *   as active) and spawns its worker; a refused pod is kept as `rejected` with Go's Failed status,
 *   which goes to the status manager (cluster mode) and is emitted as `pod.admission.rejected`
 *   (the composition root records the Warning event). UPDATE forwards the spec; DELETE and REMOVE
 *   ask the worker to kill the pod with its grace period; RECONCILE (only the status changed in
 *   the API server) hands the worker the pod's new status when a readiness gate's condition changed
 *   what Ready should say (Go's HandlePodReconcile with NeedToReconcilePodReadiness).
 * - Eviction (system id `evictionManager`): `node.pressure.changed` keeps the node's pressure
 *   conditions for admission, whose first handler is the eviction manager's (admitUnderPressure,
 *   reason `Evicted`); `pod.evict.requested` asks an active pod's worker to kill it as an eviction
 *   (status Failed/Evicted with the manager's message), and the manager hears `pod.eviction.finished`
 *   when the worker is done (evicted: false at once when there is no such active pod).
 * - plegCh → `pleg.events`: each pod with an event is asked to sync now — unless the runtime's last
 *   announced health (`runtime.health.changed`) is not ready: then, as Go's syncLoop skips its
 *   iterations, nothing is dispatched until the runtime is back, and then every pod syncs.
 * - probe results → `probe.result.changed`: forwarded to the pod's worker.
 * - A worker that finished (`terminated`, `pod.worker.terminated`) is stopped, and forgotten once its
 *   pod left the config.
 * - Dead containers (Go's pod container deletor, cleanUpContainersInPod): each ContainerDied asks the
 *   `containerDeletor` child to remove the older exited instances of that container, keeping
 *   `deadContainersKept`; all of the pod's exited containers go when its content is to be removed
 *   (ShouldPodContentBeRemoved: a deleted pod whose worker is done, or a pod no source has once every
 *   source was seen). Unlike Go, a deleted pod's worker finishing asks for that too: our PLEG may
 *   report the deaths while the worker is still terminating, and then Go's rule would keep one each
 *   until the periodic GC.
 * - Stopped sandboxes (Go's pod sandbox deletor): each ContainerDied or ContainerRemoved (the PLEG
 *   reports sandboxes as containers) asks the `sandboxDeletor` child, once per pod and batch, to
 *   remove the pod's stopped sandboxes no container names; a pod whose content is to be removed
 *   keeps none, any other its latest (`sandboxesKept`). A deleted pod's worker finishing asks too:
 *   its sandbox may have stopped, its containers gone, while the worker was still terminating.
 * - Status: each worker reports `pod.status.updated`; the syncLoop keeps the latest per pod (the
 *   status manager reads it), and starts or restarts probe workers as containers start.
 * - Volumes (system id `volumeManager`, when there is one): a pod that reached Succeeded or Failed
 *   has its volumes torn down; a pod whose worker is done has them torn down and its directory
 *   removed; once every source was seen, pod directories of pods no source has are cleaned up
 *   (Go's housekeeping cleanupOrphanedPodDirs).
 * - Orphans (HandlePodCleanups): once every source has been seen, a pod the runtime runs (the
 *   PLEG's `runningPodUids`) that no source has and no worker handles gets a runtime-only worker
 *   that kills it with a 1 s grace period (Go's SyncPodKill with a RunningPod). Checked when the
 *   sources become ready, when the PLEG reports a changed set of running pods and when the runtime
 *   is back; skipped while the runtime is not ready, as Go skips housekeeping then. A source that
 *   adds the same uid while its orphan is being killed waits for the kill to finish (Go restarts a
 *   pod whose uid is re-added after it terminated); the orphan is forgotten once its worker is done.
 *   A relist that began before a kill ended can still show that pod running: it is then killed once
 *   more, finding nothing to stop (Go's housekeeping reads a cache with the same lag).
 * The 1 s syncCh and 2 s housekeeping ticks of Go are folded into the workers' own resync timers,
 * the done/REMOVE handling and the PLEG's running pods here, so an idle node journals nothing.
 * Pure: no I/O, no clock reads.
 */
import { assertEvent, assign, enqueueActions, fromCallback, setup, type AnyEventObject } from 'xstate';
import { actorIdParts, podWorkerId, probeWorkerId } from '../domain/actor-ids.js';
import { effectError } from './done-output.js';
import { admitUnderPressure } from '../domain/eviction/admission.js';
import type { PressureCondition } from '../domain/eviction/signals.js';
import { admitPod, rejectedPodStatus } from '../domain/pod/admission.js';
import { needToReconcilePodReadiness } from '../domain/pod/conditions.js';
import { admitPodIdentity, crashedPodStatus, REASON_POD_ACTOR_FAILED } from '../domain/pod/spec-identity.js';
import { admitSysctls, sysctlAllowlist } from '../domain/pod/sysctls.js';
import { isTerminalPhase } from '../domain/pod/status.js';
import type { AdmissionNode } from '../domain/pod/admission-node.js';
import { isActiveForAdmission, isPodContentRemovable, killGracePeriod, probeTargets, resyncJitterFraction } from '../domain/pod/lifecycle.js';
import type { ProbeType } from '../domain/probe/types.js';
import { usageOf, withPod, type NodeUsage } from '../domain/pod/node-usage.js';
import { findOrphans, orphanGracePeriodSeconds, runtimeOnlyPod } from '../domain/pod/orphans.js';
import type { Pod, PodCondition, PodStatus } from '../domain/pod/types.js';
import { containerRef } from '../domain/runtime/container-events.js';
import { sandboxesKept } from '../domain/runtime/dead-sandboxes.js';
import type { PlegInput } from './pleg.machine.js';
import type { PodConfigInput } from './pod-config.machine.js';
import type { PodWorkerInput, PodWorkerTerminatedEvent } from './pod-worker.machine.js';
import type { ProbeInput } from './probe.machine.js';
import { subsystemSlot } from './subsystem-slot.js';
import { sendToChild, sendToSystem, sendToSystemIfRunning } from './system-sends.js';

export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

export interface SyncLoopInput {
  nodeName: string;
  /** The node admission checks pods against: name, OS, labels, taints, allocatable (maxPods as its pods). */
  node: AdmissionNode;
  /** Everything the pod config machine needs (sources, periods) but the node's name. */
  podConfig: Omit<PodConfigInput, 'nodeName'>;
  /** Everything a pod worker needs besides its pod, host IP and jitter (resync period…). */
  podWorker: Omit<PodWorkerInput, 'pod' | 'hostIP' | 'resyncJitterFraction'>;
  /** Everything the PLEG needs (relist period…). */
  pleg: PlegInput;
  hostIP: string;
  /** Dead instances kept per container of a pod that stays (deadContainersKept of --maximum-dead-containers-per-container). */
  deadContainersKept: number;
  /** --allowed-unsafe-sysctls, validated (each known to be namespaced). Default none: the safe sysctls only. */
  allowedUnsafeSysctls?: string[];
}

export interface PodEntry {
  pod: Pod;
  /** active: a worker drives it; rejected: admission refused it; terminated: its worker is done. */
  lifecycle: 'active' | 'terminating' | 'terminated' | 'rejected';
  /** Removed from its source: forget it once terminated. */
  removed: boolean;
  status: PodStatus | null;
  /** Container start time (ms) per container name that probe workers were started for. */
  probedStarts: Record<string, number>;
  /** The volume manager was told to tear this pod's volumes down (it reached Succeeded or Failed). */
  volumesReleased?: boolean;
  /** The eviction manager asked for this pod's kill: it is told when the worker is done. */
  evicting?: boolean;
}

/** A runtime-only pod being killed; `deferred` is a source's pod with the same uid, added once it is gone. */
export interface OrphanEntry { deferred: { pod: Pod; source: string } | null }

export interface SyncLoopContext {
  input: SyncLoopInput;
  pods: Record<string, PodEntry>;
  /** Orphans with a runtime-only worker, by uid. */
  orphans: Record<string, OrphanEntry>;
  /** The pods the runtime runs, as the PLEG last reported them (sorted uids). */
  runtimePodUids: string[];
  sourcesReady: boolean;
  rejectedManifests: { source: string; origin: string; reason: string }[];
  /** The runtime's last announced health: while it is not ready, PLEG-driven syncs are skipped. */
  runtime: { healthy: boolean; reason: string };
  /** The node's pressure conditions as the eviction manager last reported them (its admit handler). */
  pressure: PressureCondition[];
}

export type SyncLoopEvent =
  | { type: 'pod.config.updated'; op: PodOperation; source: string; pods: Pod[] }
  | { type: 'pod.config.sourcesReady' }
  | { type: 'pod.manifest.rejected'; source: string; origin: string; reason: string }
  | { type: 'pod.manifest.cleared'; source: string; origin: string }
  | { type: 'pleg.events'; events: { podUid: string; type: string; containerId?: string }[]; runningPodUids?: string[]; discarded?: number; discardedPodUids?: string[] }
  | { type: 'pod.status.updated'; podUid: string; status: PodStatus }
  | { type: 'probe.result.changed'; podUid: string; container: string; probe: ProbeType; result: string; observedAtMs?: number }
  | { type: 'runtime.health.changed'; health: 'ready' | 'notReady' | 'down'; reason: string }
  | { type: 'api.mirrorPods.observed'; pods: Pod[]; observedAtMs: number }
  | { type: 'node.pressure.changed'; conditions: PressureCondition[] }
  | { type: 'pod.evict.requested'; podUid: string; gracePeriodSeconds: number; reason: string; message: string; condition?: PodCondition }
  | PodWorkerTerminatedEvent;

/** Sent to the `containerDeletor` child: remove the pod's exited containers but the newest `keep` of each name. */
export interface DeadContainersRemoveRequested {
  type: 'pod.deadContainers.remove';
  podUid: string;
  /** The container that died: only its name's instances are looked at; null: every container of the pod. */
  containerId: string | null;
  keep: number;
}

/** Sent to the `sandboxDeletor` child: remove the pod's stopped sandboxes without containers but the newest `keep`. */
export interface PodSandboxesRemoveRequested {
  type: 'pod.sandboxes.remove';
  podUid: string;
  keep: number;
}

/** The effectful actor srcs: replay makes exactly these inert. */
export const SYNC_LOOP_EFFECTS = ['containerDeletor', 'sandboxDeletor'] as const;

/** Emitted when admission refuses a pod: Go's rejectPod records a Warning event with these. */
export interface PodAdmissionRejected {
  type: 'pod.admission.rejected';
  pod: { namespace: string; name: string; uid: string };
  reason: string;
  message: string;
}

export { podWorkerId, probeWorkerId };

/** Pods whose worker is not done (active or terminating) and orphans being killed, sorted. */
function possiblyRunningPods(context: SyncLoopContext): string[] {
  const running = Object.entries(context.pods).filter(([, e]) => e.lifecycle === 'active' || e.lifecycle === 'terminating').map(([uid]) => uid);
  return [...running, ...Object.keys(context.orphans)].sort();
}
/** The probe workers a pod has, by id. */
const probeWorkersOf = (uid: string, entry: PodEntry): ReturnType<typeof probeWorkerId>[] =>
  Object.keys(entry.probedStarts).map((key) => {
    // `<container>:<probe>`: the probe type has no colon, a container name given by a source may.
    const colon = key.lastIndexOf(':');
    return probeWorkerId(uid, key.slice(0, colon), key.slice(colon + 1));
  });

/** Emitted when a pod's worker or probe worker threw: the daemon logs it as an error. */
export interface PodActorFailed {
  type: 'pod.actor.failed';
  pod: { namespace: string; name: string; uid: string };
  actorId: string;
  message: string;
}

const podRefOf = (pod: Pod) => ({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid ?? '' });

const ERROR_EVENT_PREFIX = 'xstate.error.actor.';

/** The pod worker or probe worker an `xstate.error.actor.<id>` event is about, with its pod and error; null for any other actor. */
function crashedActorOf(event: AnyEventObject): { id: string; uid: string; message: string } | null {
  if (!event.type.startsWith(ERROR_EVENT_PREFIX)) return null;
  const id = event.type.slice(ERROR_EVENT_PREFIX.length);
  const uid = (actorIdParts(id, 'pod') ?? actorIdParts(id, 'probe'))?.[0];
  if (uid === undefined) return null;
  return { id, uid, message: effectError(event).message };
}

/** A runtime-only worker for `uid`: it kills whatever of the pod the runtime runs, knowing no spec. */
function spawnRuntimeOnlyWorker(enqueue: { spawnChild: (src: 'podWorker', opts: { id: string; systemId: string; input: PodWorkerInput }) => void }, input: SyncLoopInput, uid: string): void {
  enqueue.spawnChild('podWorker', {
    id: podWorkerId(uid),
    systemId: podWorkerId(uid),
    input: { ...input.podWorker, pod: runtimeOnlyPod(uid), hostIP: input.hostIP, runtimeOnly: { reason: 'orphaned', gracePeriodSeconds: orphanGracePeriodSeconds } },
  });
}

export const syncLoopMachine = setup({
  types: {
    context: {} as SyncLoopContext,
    events: {} as SyncLoopEvent,
    input: {} as SyncLoopInput,
    emitted: {} as PodAdmissionRejected | PodActorFailed,
  },
  actors: {
    podConfig: subsystemSlot<PodConfigInput>(),
    pleg: subsystemSlot<PlegInput>(),
    podWorker: subsystemSlot<PodWorkerInput>(),
    probe: subsystemSlot<ProbeInput>(),
    // Inert until provided (provideSystem requires it): a syncLoop under test removes nothing.
    containerDeletor: fromCallback<DeadContainersRemoveRequested>(() => {}),
    sandboxDeletor: fromCallback<PodSandboxesRemoveRequested>(() => {}),
  },
  actions: {
    /** Housekeeping's orphan kill: a runtime-only worker for each orphan (see the contract above). */
    killOrphans: enqueueActions(({ context, enqueue }) => {
      if (!context.sourcesReady || !context.runtime.healthy) return;
      const orphans = findOrphans(context.runtimePodUids, new Set(Object.keys(context.pods)), new Set(Object.keys(context.orphans)));
      if (orphans.length === 0) return;
      const added: Record<string, OrphanEntry> = {};
      for (const uid of orphans) {
        spawnRuntimeOnlyWorker(enqueue, context.input, uid);
        added[uid] = { deferred: null };
      }
      enqueue.assign({ orphans: { ...context.orphans, ...added } });
    }),
    /**
     * A pod worker or probe worker threw (a kubelet bug met with one pod's data): that pod fails
     * (status Failed, a Warning event, an error logged), a runtime-only worker kills whatever of it
     * runs, and every other pod goes on. A runtime-only worker that throws is forgotten.
     */
    failPodOfCrashedActor: enqueueActions(({ context, event, enqueue, system }) => {
      const crashed = crashedActorOf(event);
      if (!crashed) return;
      const { id, uid, message } = crashed;
      enqueue.stopChild(id);
      const pod = context.pods[uid]?.pod ?? runtimeOnlyPod(uid);
      enqueue.emit({ type: 'pod.actor.failed', pod: podRefOf(pod), actorId: id, message });
      if (context.orphans[uid]) {
        if (id !== podWorkerId(uid)) return;
        const { [uid]: _forgotten, ...orphans } = context.orphans;
        enqueue.assign({ orphans });
        return;
      }
      const entry = context.pods[uid];
      if (!entry || entry.lifecycle === 'rejected' || entry.lifecycle === 'terminated') return;
      enqueue.stopChild(podWorkerId(uid));
      for (const probe of probeWorkersOf(uid, entry)) enqueue.stopChild(probe);
      const status = crashedPodStatus(entry.pod, message);
      // Cluster mode only, as for every status.
      sendToSystemIfRunning(enqueue, system, 'statusManager', { type: 'pod.status.updated', podUid: uid, status });
      enqueue.emit({ type: 'pod.admission.rejected', pod: podRefOf(entry.pod), reason: REASON_POD_ACTOR_FAILED, message });
      spawnRuntimeOnlyWorker(enqueue, context.input, uid);
      enqueue.assign({
        pods: { ...context.pods, [uid]: { ...entry, lifecycle: 'rejected', status, probedStarts: {} } },
        orphans: { ...context.orphans, [uid]: { deferred: null } },
      });
    }),
    /**
     * In cluster mode the status manager (system id `statusManager`) keeps the API server's view:
     * it is told every pod config update, every pod status and the mirror pods the API source saw.
     * Standalone, there is none.
     */
    forwardToStatusManager: enqueueActions(({ event, enqueue, system }) => {
      assertEvent(event, ['pod.config.updated', 'pod.status.updated', 'api.mirrorPods.observed']);
      sendToSystemIfRunning(enqueue, system, 'statusManager', event);
    }),
    /** Housekeeping's cleanupOrphanedPodDirs: every pod the sources have is kept. */
    cleanupOrphanedPodDirectories: enqueueActions(({ context, enqueue, system }) => {
      // Like every volume send: the volume manager is optional to the syncLoop (see the contract).
      sendToSystemIfRunning(enqueue, system, 'volumeManager', { type: 'volumes.pods.known', podUids: [...Object.keys(context.pods), ...Object.keys(context.orphans)] });
    }),
    /** Housekeeping's cleanupOrphanedPodCgroups: the cgroups of pods that may still run are kept. */
    cleanupOrphanedPodCgroups: enqueueActions(({ context, enqueue, system }) => {
      // The syncLoop runs without a container manager where pods get no cgroups of their own (its tests, tools).
      if (context.sourcesReady) sendToSystemIfRunning(enqueue, system, 'containerManager', { type: 'cgroups.pods.running', podUids: possiblyRunningPods(context) });
    }),
  },
}).createMachine({
  id: 'syncLoop',
  context: ({ input }) => ({ input, pods: {}, orphans: {}, runtimePodUids: [], sourcesReady: false, rejectedManifests: [], runtime: { healthy: true, reason: '' }, pressure: [] }),
  invoke: [
    { id: 'podConfig', systemId: 'podConfig', src: 'podConfig', input: ({ context }: { context: SyncLoopContext }) => ({ ...context.input.podConfig, nodeName: context.input.nodeName }) },
    { id: 'pleg', systemId: 'pleg', src: 'pleg', input: ({ context }: { context: SyncLoopContext }) => context.input.pleg },
    { id: 'containerDeletor', systemId: 'containerDeletor', src: 'containerDeletor' },
    { id: 'sandboxDeletor', systemId: 'sandboxDeletor', src: 'sandboxDeletor' },
  ],
  initial: 'waitingForSources',
  states: {
    waitingForSources: {
      meta: { description: 'pods are admitted and run; housekeeping waits until every source has been seen' },
      on: { 'pod.config.sourcesReady': { target: 'syncing', actions: [assign({ sourcesReady: true }), 'killOrphans', 'cleanupOrphanedPodDirectories', 'cleanupOrphanedPodCgroups'] } },
    },
    syncing: {
      meta: { description: 'every source seen: pods removed from all sources are cleaned up, orphaned pods killed' },
    },
  },
  on: {
    'api.mirrorPods.observed': { actions: 'forwardToStatusManager' },
    'pod.config.updated': {
      actions: ['forwardToStatusManager', enqueueActions(({ context, event, enqueue, system }) => {
        const pods = { ...context.pods };
        const orphans = { ...context.orphans };
        // What the active pods hold, counted once per update and grown as pods are admitted.
        let usage: NodeUsage | null = null;
        for (const pod of event.pods) {
          const uid = pod.metadata.uid ?? '';
          const orphan = orphans[uid];
          if (orphan) {
            // The uid's runtime-only worker is still killing it: the source's pod waits (latest form wins).
            if (event.op === 'REMOVE') {
              orphans[uid] = { deferred: null };
              // A pod failed for a crashed worker is being killed as an orphan: gone from its source, it is forgotten.
              if (pods[uid]?.lifecycle === 'rejected') delete pods[uid];
            }
            else if (event.op === 'ADD' || (orphan.deferred && event.op !== 'RECONCILE')) orphans[uid] = { deferred: { pod, source: event.source } };
            continue;
          }
          const entry = pods[uid];
          const worker = podWorkerId(uid);
          switch (event.op) {
            case 'ADD': {
              if (entry?.lifecycle === 'rejected') {
                // Refused once, Failed for good (Go keeps a rejected pod's status).
                pods[uid] = { ...entry, pod, removed: false };
                break;
              }
              if (entry && entry.lifecycle !== 'terminated') {
                sendToChild(enqueue, worker, { type: 'pod.spec.updated', pod });
                pods[uid] = { ...entry, pod, removed: false };
                break;
              }
              usage ??= usageOf(Object.values(pods).filter((p) => isActiveForAdmission(p.lifecycle, p.status)).map((p) => p.pod));
              // A uid or a name the kubelet cannot use first; then Go's admit handlers in order: the
              // eviction manager's, the sysctls', then the predicates.
              const identity = admitPodIdentity(pod);
              const underPressure = identity.admit ? admitUnderPressure(pod, context.pressure) : identity;
              const sysctls = underPressure.admit ? admitSysctls(pod, sysctlAllowlist(context.input.allowedUnsafeSysctls ?? [])) : underPressure;
              const admission = sysctls.admit ? admitPod(pod, context.input.node, usage) : sysctls;
              if (!admission.admit) {
                const status = rejectedPodStatus(pod, admission);
                pods[uid] = { pod, lifecycle: 'rejected', removed: false, status, probedStarts: {} };
                sendToSystemIfRunning(enqueue, system, 'statusManager', { type: 'pod.status.updated', podUid: uid, status }); // cluster mode only
                enqueue.emit({
                  type: 'pod.admission.rejected',
                  pod: { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid },
                  reason: admission.reason,
                  message: admission.message,
                });
                break;
              }
              usage = withPod(usage, pod);
              enqueue.spawnChild('podWorker', {
                id: worker,
                systemId: worker,
                input: { ...context.input.podWorker, pod, hostIP: context.input.hostIP, resyncJitterFraction: resyncJitterFraction(uid) },
              });
              pods[uid] = { pod, lifecycle: 'active', removed: false, status: null, probedStarts: {} };
              break;
            }
            case 'UPDATE':
              if (entry?.lifecycle === 'active') {
                sendToChild(enqueue, worker, { type: 'pod.spec.updated', pod });
                pods[uid] = { ...entry, pod };
              }
              break;
            case 'DELETE':
            case 'REMOVE':
              if (!entry) break;
              if (entry.lifecycle === 'active' || entry.lifecycle === 'terminating') {
                sendToChild(enqueue, worker, { type: 'pod.kill.requested', gracePeriodSeconds: killGracePeriod(pod), reason: event.op === 'DELETE' ? 'deleted' : 'removed from its source' });
                for (const id of probeWorkersOf(uid, entry)) sendToChild(enqueue, id, { type: 'probe.pod.terminating' });
                pods[uid] = { ...entry, pod, lifecycle: 'terminating', removed: entry.removed || event.op === 'REMOVE' };
              } else if (event.op === 'REMOVE') {
                delete pods[uid];
              }
              break;
            case 'RECONCILE':
              // HandlePodReconcile: a sync when a readiness gate's condition changed what Ready should
              // say (the other reconciles, the echoes of the kubelet's own patches mostly, wake nobody).
              if ((entry?.lifecycle === 'active' || entry?.lifecycle === 'terminating') && needToReconcilePodReadiness(pod)) {
                sendToChild(enqueue, worker, { type: 'pod.status.reconciled', pod });
                pods[uid] = { ...entry, pod };
              }
              break;
          }
        }
        enqueue.assign({ pods, orphans });
      })],
    },
    'node.pressure.changed': { actions: assign({ pressure: ({ event }) => event.conditions }) },
    // Typed loosely: the children that may throw are spawned, so their error events carry ids xstate cannot list.
    ...({ 'xstate.error.actor.*': { guard: ({ event }: { event: AnyEventObject }) => crashedActorOf(event) !== null, actions: 'failPodOfCrashedActor' } } as object),
    // The eviction manager's killPodFunc: the worker kills the pod and ends it Failed/Evicted.
    'pod.evict.requested': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const entry = context.pods[event.podUid];
        if (entry?.lifecycle !== 'active') {
          // The eviction manager asked, and it is stopped after the syncLoop: it waits for this answer.
          sendToSystem(enqueue, system, 'evictionManager', { type: 'pod.eviction.finished', podUid: event.podUid, evicted: false });
          return;
        }
        sendToChild(enqueue, podWorkerId(event.podUid), {
          type: 'pod.kill.requested',
          gracePeriodSeconds: event.gracePeriodSeconds,
          reason: 'evicted',
          eviction: { reason: event.reason, message: event.message, ...(event.condition ? { condition: event.condition } : {}) },
        });
        for (const id of probeWorkersOf(event.podUid, entry)) sendToChild(enqueue, id, { type: 'probe.pod.terminating' });
        enqueue.assign({ pods: { ...context.pods, [event.podUid]: { ...entry, lifecycle: 'terminating', evicting: true } } });
      }),
    },
    'pod.manifest.rejected': {
      actions: assign({
        rejectedManifests: ({ context, event }) => [
          ...context.rejectedManifests.filter((r) => r.origin !== event.origin).slice(-99),
          { source: event.source, origin: event.origin, reason: event.reason },
        ],
      }),
    },
    'pod.manifest.cleared': {
      actions: assign({
        rejectedManifests: ({ context, event }) => context.rejectedManifests.filter((r) => r.origin !== event.origin),
      }),
    },
    'runtime.health.changed': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const healthy = event.health === 'ready';
        enqueue.assign({ runtime: { healthy, reason: event.reason } });
        // Back from an outage: every pod syncs now rather than at its next resync, and orphans go.
        if (healthy && !context.runtime.healthy) {
          for (const [uid, p] of Object.entries(context.pods)) {
            if (p.lifecycle === 'active' || p.lifecycle === 'terminating') sendToChild(enqueue, podWorkerId(uid), { type: 'pod.sync.requested', reason: 'runtime ready' });
          }
          enqueue('killOrphans');
        }
      }),
    },
    'pleg.events': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        // A changed set of running pods is kept (and looked through for orphans) even while the runtime is not ready.
        if (event.runningPodUids) {
          enqueue.assign({ runtimePodUids: event.runningPodUids });
          enqueue('killOrphans');
        }
        // Pods whose every event was dropped: their last runtime view is out of date (the PLEG's note).
        for (const uid of event.discardedPodUids ?? []) {
          if (context.pods[uid]?.lifecycle === 'active') sendToChild(enqueue, podWorkerId(uid), { type: 'pod.runtime.unseen' });
        }
        // Go's syncLoop skips its iterations while the runtime reports errors.
        if (!context.runtime.healthy) return;
        const uids = new Set(event.events.map((e) => e.podUid));
        for (const uid of uids) {
          if (context.pods[uid]?.lifecycle === 'active' || context.pods[uid]?.lifecycle === 'terminating') {
            sendToChild(enqueue, podWorkerId(uid), { type: 'pod.sync.requested', reason: 'pleg' });
          }
        }
        for (const e of event.events) {
          if (e.type !== 'ContainerDied' || e.containerId === undefined) continue;
          const removeAll = isPodContentRemovable(context.pods[e.podUid], context.sourcesReady);
          sendToChild(enqueue, 'containerDeletor', {
            type: 'pod.deadContainers.remove',
            podUid: e.podUid,
            containerId: removeAll ? null : e.containerId,
            keep: removeAll ? 0 : context.input.deadContainersKept,
          });
        }
        const sandboxPods = new Set(event.events.filter((e) => e.type === 'ContainerDied' || e.type === 'ContainerRemoved').map((e) => e.podUid));
        for (const uid of sandboxPods) {
          sendToChild(enqueue, 'sandboxDeletor', { type: 'pod.sandboxes.remove', podUid: uid, keep: sandboxesKept(isPodContentRemovable(context.pods[uid], context.sourcesReady)) });
        }
      }),
    },
    'probe.result.changed': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        if (context.pods[event.podUid]?.lifecycle !== 'active') return;
        // With the probe's time, so a readiness change moves the Ready condition when the probe ran.
        const { container, probe, result, observedAtMs } = event;
        sendToChild(enqueue, podWorkerId(event.podUid), { type: 'probe.result.changed', container, probe, result, ...(observedAtMs !== undefined ? { observedAtMs } : {}) });
      }),
    },
    'pod.status.updated': {
      actions: ['forwardToStatusManager', enqueueActions(({ context, event, enqueue, system }) => {
        const entry = context.pods[event.podUid];
        if (!entry) return;
        // A pod that ran to completion no longer needs its volumes (its directory stays until it is gone).
        const releaseVolumes = !entry.volumesReleased && isTerminalPhase(event.status.phase);
        if (releaseVolumes) sendToSystemIfRunning(enqueue, system, 'volumeManager', { type: 'volumes.pod.release', podUid: event.podUid, removeDirectory: false });
        const probedStarts = { ...entry.probedStarts };
        if (entry.lifecycle === 'active') {
          for (const t of probeTargets(entry.pod, event.status)) {
            const id = probeWorkerId(event.podUid, t.container.name, t.probe);
            const known = probedStarts[`${t.container.name}:${t.probe}`];
            if (known === t.startedAtMs) continue;
            if (known === undefined) {
              enqueue.spawnChild('probe', {
                id,
                systemId: id,
                input: {
                  podUid: event.podUid,
                  podIP: event.status.podIP ?? '',
                  hostIP: context.input.hostIP,
                  container: t.container,
                  containerId: t.containerId,
                  probe: t.probe,
                  containerStartedAtMs: t.startedAtMs,
                  ...probeEventRef(entry.pod, t.container.name),
                },
              });
            } else {
              sendToChild(enqueue, id, { type: 'probe.container.restarted', containerId: t.containerId, containerStartedAtMs: t.startedAtMs, podIP: event.status.podIP ?? '' });
            }
            probedStarts[`${t.container.name}:${t.probe}`] = t.startedAtMs;
          }
        }
        enqueue.assign({ pods: { ...context.pods, [event.podUid]: { ...entry, status: event.status, probedStarts, ...(releaseVolumes ? { volumesReleased: true } : {}) } } });
      })],
    },
    // A pod worker reached `terminated`.
    'pod.worker.terminated': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const uid = event.podUid;
        // The worker waits in `terminated` to be stopped (a spawned child stays among the children until then).
        enqueue.stopChild(podWorkerId(uid));
        // The pod's worker is done: nothing of it runs, its volumes and directory can go.
        sendToSystemIfRunning(enqueue, system, 'volumeManager', { type: 'volumes.pod.release', podUid: uid, removeDirectory: true });
        const orphan = context.orphans[uid];
        if (orphan) {
          // An orphan is gone: forgotten, and a source's pod with its uid that waited is added now.
          const { [uid]: _done, ...orphans } = context.orphans;
          enqueue.assign({ orphans });
          enqueue('cleanupOrphanedPodCgroups');
          if (orphan.deferred) enqueue.raise({ type: 'pod.config.updated', op: 'ADD', source: orphan.deferred.source, pods: [orphan.deferred.pod] });
          return;
        }
        const entry = context.pods[uid];
        if (!entry) return;
        for (const id of probeWorkersOf(uid, entry)) enqueue.stopChild(id);
        if (entry.evicting) {
          sendToSystem(enqueue, system, 'evictionManager', { type: 'pod.eviction.finished', podUid: uid, evicted: true });
        }
        const { evicting: _answered, ...rest } = entry;
        const terminated: PodEntry = { ...rest, lifecycle: 'terminated', probedStarts: {} };
        if (isPodContentRemovable(terminated, context.sourcesReady)) {
          sendToChild(enqueue, 'containerDeletor', { type: 'pod.deadContainers.remove', podUid: uid, containerId: null, keep: 0 });
          sendToChild(enqueue, 'sandboxDeletor', { type: 'pod.sandboxes.remove', podUid: uid, keep: sandboxesKept(true) });
        }
        const pods = { ...context.pods };
        if (entry.removed) delete pods[uid];
        else pods[uid] = terminated;
        enqueue.assign({ pods });
        // Nothing of the pod runs any more: its cgroup goes (Go: the next housekeeping's cleanup).
        enqueue('cleanupOrphanedPodCgroups');
      }),
    },
  },
});

/** The container's reference for its probe events, when the pod's spec names it. */
function probeEventRef(pod: Pod, container: string): Pick<ProbeInput, 'containerRef'> {
  const ref = containerRef(pod, container);
  return ref ? { containerRef: ref } : {};
}
