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
 * - The node (cluster mode, `liveNode`): admission's labels and taints are the API server's Node's,
 *   as `nodeStatus` reports them changed (`node.object.changed`). A pod that node affinity alone
 *   refused waits, not admitted, while `nodeStatus` reads the Node again (`node.refresh.requested`),
 *   then is admitted once more against what was read (`node.object.refreshed`), and refused for
 *   good if it still does not match (Go's predicate handler re-fetching the Node). Pods that came
 *   while a read was under way wait for the next one. A waiting pod counts as known to housekeeping.
 * - Eviction (system id `evictionManager`): `node.pressure.changed` keeps the node's pressure
 *   conditions for admission, whose first handler is the eviction manager's (admitUnderPressure,
 *   reason `Evicted`); `pod.evict.requested` asks an active pod's worker to kill it as an eviction
 *   (status Failed/Evicted with the manager's message), and the manager hears `pod.eviction.finished`
 *   when the worker is done (evicted: false at once when there is no such active pod). The node
 *   shutdown manager (system id `nodeShutdown`) kills pods the same way (`requester`), and while
 *   it reports the node shutting down (`node.shutdown.changed`) new pods are refused.
 * - plegCh → `pleg.events`: each pod with an event is asked to sync now — unless the runtime's last
 *   announced health (`runtime.health.changed`) is not ready: then, as Go's syncLoop skips its
 *   iterations, nothing is dispatched until the runtime is back, and then every pod syncs.
 * - probe results → `probe.result.changed`: forwarded to the pod's worker while it runs; a startup
 *   success lifts the container's liveness and readiness workers' gate (domain/sync-loop/probe-results).
 * - A worker that finished (`terminated`, `pod.worker.terminated`) is stopped, and forgotten once its
 *   pod left the config.
 * - Resource managers (domain/resource-managers): admission gives a pod its exclusive CPUs, devices
 *   and NUMA memory (after the sysctls' handler, before the predicates); what it gave is kept in
 *   `resources`, handed to the pod's worker (its containers' CRI configs carry it), and released when
 *   the pod reaches Succeeded or Failed or its worker is done, or at sources ready for a pod no
 *   source has. Each change goes to the
 *   `resourceManagers` child (`resources.changed`: the state files, the CPU reconcile). The initial
 *   `resources` and the `inventory` are the input's (the state files read at start-up).
 * - Dead containers (Go's pod container deletor, cleanUpContainersInPod): each ContainerDied asks the
 *   `containerDeletor` child to remove the older exited instances of that container, keeping
 *   `deadContainersKept`; all of the pod's exited containers go when its content is to be removed
 *   (ShouldPodContentBeRemoved: a deleted pod whose worker is done, or a pod no source has once every
 *   source was seen). Unlike Go, a deleted pod's worker finishing asks for that too: our PLEG may
 *   report the deaths while the worker is still terminating, and then Go's rule would keep one each
 *   until the periodic GC; the worker names the exited containers of its last view, and those go
 *   without the deletor reading the runtime. A PLEG event asks only when the relist's `deadCounts`
 *   show something to remove, and for all of a pod's containers once per batch (Go's deletor finds
 *   what to remove in its pod cache, without a runtime call).
 * - Stopped sandboxes (Go's pod sandbox deletor): each ContainerDied or ContainerRemoved (the PLEG
 *   reports sandboxes as containers) asks the `sandboxDeletor` child, once per pod and batch, to
 *   remove the pod's stopped sandboxes no container names; a pod whose content is to be removed
 *   keeps none, any other its latest (`sandboxesKept`), and none is asked for a pod with no more
 *   sandboxes than it keeps. A deleted pod's worker finishing asks too.
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
 * The decisions are the pure functions of domain/sync-loop (one file per kind of event): each takes
 * the state and the event and returns the next state and the commands, which `carryOut` turns into
 * sends, spawns and emits in order. Pure: no I/O, no clock reads.
 */
import { assertEvent, assign, enqueueActions, fromCallback, setup, type AnyActorRef, type AnyEventObject, type EventObject } from 'xstate';
import { actorIdParts, podWorkerId, probeWorkerId } from '../domain/actor-ids.js';
import { effectError } from './done-output.js';
import type { PressureCondition } from '../domain/eviction/signals.js';
import type { AdmissionNode } from '../domain/pod/admission-node.js';
import { resyncJitterFraction } from '../domain/pod/lifecycle.js';
import { orphanGracePeriodSeconds, runtimeOnlyPod } from '../domain/pod/orphans.js';
import type { Pod, PodCondition, PodStatus } from '../domain/pod/types.js';
import type { Taint } from '../domain/api/common-types.js';
import type { Assignments } from '../domain/resource-managers/assignments.js';
import { EMPTY_INVENTORY, type ResourceInventory } from '../domain/resource-managers/inventory.js';
import { withDevices, type DevicesChangedEvent } from '../domain/resource-managers/device-inventory.js';
import type { PodActorFailed, PodAdmissionRejected, PodResizeEvent, SyncLoopCommand } from '../domain/sync-loop/commands.js';
import { decideNodeChanged, decideNodeRefreshed } from '../domain/sync-loop/live-node.js';
import { decideOrphanKills, knownPods, podCgroupsToKeep } from '../domain/sync-loop/orphans.js';
import { decideCrashedActor, decideEviction, decideWorkerTerminated } from '../domain/sync-loop/pod-ends.js';
import { retryDeferredResizes } from '../domain/sync-loop/pod-resize.js';
import { decidePodConfigUpdate, type PodOperation } from '../domain/sync-loop/pod-config-update.js';
import { decidePodStatus } from '../domain/sync-loop/pod-status.js';
import { decideProbeResult, type ProbeResultChange } from '../domain/sync-loop/probe-results.js';
import { dropStaleResources } from '../domain/sync-loop/resources.js';
import { decidePlegEvents, decideRuntimeHealth, type PlegEvents } from '../domain/sync-loop/runtime-events.js';
import type { KillRequester, SyncLoopSettings, SyncLoopState } from '../domain/sync-loop/state.js';
import type { PlegInput } from './pleg.machine.js';
import type { PodConfigInput } from './pod-config.machine.js';
import type { PodWorkerInput, PodWorkerTerminatedEvent } from './pod-worker.machine.js';
import type { ProbeInput } from './probe.machine.js';
import { subsystemSlot } from './subsystem-slot.js';
import { sendToChild, sendToSystem, sendToSystemIfRunning, type SystemLookup } from './system-sends.js';

export type { AwaitingNodeEntry, KillRequester, OrphanEntry, PodEntry } from '../domain/sync-loop/state.js';
export type { PodActorFailed, PodAdmissionRejected, PodResizeEvent } from '../domain/sync-loop/commands.js';
export type { PodOperation };

export interface SyncLoopInput {
  nodeName: string;
  /** The node admission checks pods against: name, OS, labels, taints, allocatable (maxPods as its pods). */
  node: AdmissionNode;
  /** Everything the pod config machine needs (sources, periods) but the node's name. */
  podConfig: Omit<PodConfigInput, 'nodeName'>;
  /** Everything a pod worker needs besides its pod, host IP and jitter (resync period…). */
  podWorker: Omit<PodWorkerInput, 'pod' | 'hostIP' | 'resyncJitterFraction' | 'assignment'>;
  /** Everything the PLEG needs (relist period…). */
  pleg: PlegInput;
  hostIP: string;
  /** Dead instances kept per container of a pod that stays (deadContainersKept of --maximum-dead-containers-per-container). */
  deadContainersKept: number;
  /** --allowed-unsafe-sysctls, validated (each known to be namespaced). Default none: the safe sysctls only. */
  allowedUnsafeSysctls?: string[];
  /** Cluster mode: the node follows the API server's Node, which `nodeStatus` can be asked to read again. */
  liveNode?: boolean;
  /** The resource managers' start: what admission allocates from and what the state files held. None: nothing is assigned. */
  resourceManagers?: { inventory: ResourceInventory; assignments: Assignments };
}

export interface SyncLoopContext extends SyncLoopState {
  input: SyncLoopInput;
  rejectedManifests: { source: string; origin: string; reason: string }[];
}

export type SyncLoopEvent =
  | { type: 'pod.config.updated'; op: PodOperation; source: string; pods: Pod[]; afterNodeRefresh?: boolean }
  | { type: 'pod.config.sourcesReady' }
  | { type: 'node.object.changed'; labels: Record<string, string>; taints: Taint[] }
  | { type: 'node.object.refreshed' }
  | { type: 'pod.manifest.rejected'; source: string; origin: string; reason: string }
  | { type: 'pod.manifest.cleared'; source: string; origin: string }
  | ({ type: 'pleg.events'; discarded?: number } & PlegEvents)
  | { type: 'pod.status.updated'; podUid: string; status: PodStatus }
  | ({ type: 'probe.result.changed' } & ProbeResultChange)
  | { type: 'runtime.health.changed'; health: 'ready' | 'notReady' | 'down'; reason: string }
  | { type: 'api.mirrorPods.observed'; pods: Pod[]; observedAtMs: number }
  | { type: 'node.pressure.changed'; conditions: PressureCondition[] }
  | PodEvictRequestedEvent
  | { type: 'node.shutdown.changed'; shuttingDown: boolean }
  | DevicesChangedEvent
  | PodWorkerTerminatedEvent
  /** A pod's worker finished or failed a resize (ResizeCompleted, ResizeError): emitted for the recorder. */
  | PodResizeEvent
  /** The syncLoop's own timer (scheduleResizeRetry): the deferred resizes are weighed again. */
  | { type: 'pod.resizes.retryDue' };

/** Kill an active pod and end it Failed with this reason, message and condition (Go's killPodFunc with a status update). */
export interface PodEvictRequestedEvent {
  type: 'pod.evict.requested';
  podUid: string;
  gracePeriodSeconds: number;
  reason: string;
  message: string;
  condition?: PodCondition;
  /** Who is answered; the eviction manager when absent. */
  requester?: KillRequester;
}

/** Sent to the `containerDeletor` child: remove the pod's exited containers but the newest `keep` of each name. */
export interface DeadContainersRemoveRequested {
  type: 'pod.deadContainers.remove';
  podUid: string;
  /** The container that died: only its name's instances are looked at; null: every container of the pod. */
  containerId: string | null;
  keep: number;
  /** With `containerId` null and `keep` 0: the pod's exited containers, when the pod worker's last view named them. */
  containerIds?: string[];
}

/** Sent to the `sandboxDeletor` child: remove the pod's stopped sandboxes without containers but the newest `keep`. */
export interface PodSandboxesRemoveRequested {
  type: 'pod.sandboxes.remove';
  podUid: string;
  keep: number;
}

/** Sent to the `resourceManagers` child: every assignment now, after a change. */
export interface ResourcesChanged {
  type: 'resources.changed';
  assignments: Assignments;
}

/** The effectful actor srcs: replay makes exactly these inert. */
export const SYNC_LOOP_EFFECTS = ['containerDeletor', 'sandboxDeletor', 'resourceManagers'] as const;

export { podWorkerId, probeWorkerId };

const ERROR_EVENT_PREFIX = 'xstate.error.actor.';

/** The pod worker or probe worker an `xstate.error.actor.<id>` event is about, with its pod and error; null for any other actor. */
function crashedActorOf(event: AnyEventObject): { id: string; uid: string; message: string } | null {
  if (!event.type.startsWith(ERROR_EVENT_PREFIX)) return null;
  const id = event.type.slice(ERROR_EVENT_PREFIX.length);
  const uid = (actorIdParts(id, 'pod') ?? actorIdParts(id, 'probe'))?.[0];
  if (uid === undefined) return null;
  return { id, uid, message: effectError(event).message };
}

const settingsOf = (input: SyncLoopInput): SyncLoopSettings => ({
  hostIP: input.hostIP,
  deadContainersKept: input.deadContainersKept,
  ...(input.allowedUnsafeSysctls ? { allowedUnsafeSysctls: input.allowedUnsafeSysctls } : {}),
  ...(input.liveNode ? { liveNode: true } : {}),
});

/** The state fields of a decision's result, for an assign (the context keeps its input and manifests). */
const stateOf = (state: SyncLoopState): SyncLoopState => ({
  pods: state.pods,
  orphans: state.orphans,
  runtimePodUids: state.runtimePodUids,
  sourcesReady: state.sourcesReady,
  runtime: state.runtime,
  pressure: state.pressure,
  ...(state.shuttingDown !== undefined ? { shuttingDown: state.shuttingDown } : {}),
  node: state.node,
  awaitingNode: state.awaitingNode,
  nodeRefreshing: state.nodeRefreshing,
  resources: state.resources,
  inventory: state.inventory,
  ...(state.cpuPinning ? { cpuPinning: state.cpuPinning } : {}),
});

/** What carryOut needs of an action's `enqueue`. */
interface CommandQueue {
  sendTo(to: string | AnyActorRef, event: EventObject): void;
  spawnChild(src: 'podWorker', options: { id: string; systemId: string; input: PodWorkerInput }): void;
  spawnChild(src: 'probe', options: { id: string; systemId: string; input: ProbeInput }): void;
  stopChild(id: string): void;
  emit(event: PodAdmissionRejected | PodActorFailed | PodResizeEvent): void;
  raise(event: SyncLoopEvent, options?: { id: string; delay: number }): void;
  cancel(id: string): void;
}

/** The one timer of the periodic resize retry: set again, it replaces the one before. */
const RESIZE_RETRY_TIMER = 'resizeRetry';

/** A decision's commands, in order: each a send, a spawn, a stop, an emit or a raise. */
function carryOut(enqueue: CommandQueue, system: SystemLookup, input: SyncLoopInput, commands: readonly SyncLoopCommand[]): void {
  for (const c of commands) {
    switch (c.kind) {
      case 'startWorker': {
        const id = podWorkerId(c.pod.metadata.uid ?? '');
        const assignment = Object.keys(c.assignment).length > 0 ? { assignment: c.assignment } : {};
        enqueue.spawnChild('podWorker', { id, systemId: id, input: { ...input.podWorker, pod: c.pod, hostIP: input.hostIP, resyncJitterFraction: resyncJitterFraction(c.pod.metadata.uid ?? ''), ...assignment } });
        break;
      }
      case 'startRuntimeOnlyWorker': {
        const id = podWorkerId(c.podUid);
        enqueue.spawnChild('podWorker', { id, systemId: id, input: { ...input.podWorker, pod: runtimeOnlyPod(c.podUid), hostIP: input.hostIP, runtimeOnly: { reason: 'orphaned', gracePeriodSeconds: orphanGracePeriodSeconds } } });
        break;
      }
      case 'tellWorker':
        sendToChild(enqueue, podWorkerId(c.podUid), c.message);
        break;
      case 'startProbe': {
        const { id, podUid, podIP, container, containerId, probe, containerStartedAtMs, containerRef } = c.probe;
        enqueue.spawnChild('probe', { id, systemId: id, input: { podUid, podIP, hostIP: input.hostIP, container, containerId, probe, containerStartedAtMs, ...(containerRef ? { containerRef } : {}) } });
        break;
      }
      case 'tellProbe':
        sendToChild(enqueue, c.id, c.message);
        break;
      case 'stop':
        enqueue.stopChild(c.id);
        break;
      case 'reportStatus':
        // Cluster mode only, as for every status.
        sendToSystemIfRunning(enqueue, system, 'statusManager', { type: 'pod.status.updated', podUid: c.podUid, status: c.status });
        break;
      case 'emit':
        enqueue.emit(c.event);
        break;
      case 'removeDeadContainers':
        sendToChild(enqueue, 'containerDeletor', { type: 'pod.deadContainers.remove', podUid: c.podUid, containerId: c.containerId, keep: c.keep, ...(c.containerIds ? { containerIds: c.containerIds } : {}) });
        break;
      case 'removeDeadSandboxes':
        sendToChild(enqueue, 'sandboxDeletor', { type: 'pod.sandboxes.remove', podUid: c.podUid, keep: c.keep });
        break;
      case 'releaseVolumes':
        // Like every volume send: the volume manager is optional to the syncLoop (see the contract).
        sendToSystemIfRunning(enqueue, system, 'volumeManager', { type: 'volumes.pod.release', podUid: c.podUid, removeDirectory: c.removeDirectory });
        break;
      case 'evictionFinished':
        sendToSystem(enqueue, system, c.requester, { type: 'pod.eviction.finished', podUid: c.podUid, evicted: c.evicted });
        break;
      case 'keepPodCgroups':
        // The syncLoop runs without a container manager where pods get no cgroups of their own (its tests, tools).
        sendToSystemIfRunning(enqueue, system, 'containerManager', { type: 'cgroups.pods.running', podUids: c.podUids });
        break;
      case 'addDeferred':
        enqueue.raise({ type: 'pod.config.updated', op: 'ADD', source: c.source, pods: [c.pod], ...(c.afterNodeRefresh ? { afterNodeRefresh: true } : {}) });
        break;
      case 'refreshNode':
        sendToSystem(enqueue, system, 'nodeStatus', { type: 'node.refresh.requested' });
        break;
      case 'resourcesChanged':
        sendToChild(enqueue, 'resourceManagers', { type: 'resources.changed', assignments: c.assignments });
        break;
      case 'scheduleResizeRetry':
        enqueue.cancel(RESIZE_RETRY_TIMER);
        if (c.delayMs !== null) enqueue.raise({ type: 'pod.resizes.retryDue' }, { id: RESIZE_RETRY_TIMER, delay: c.delayMs });
        break;
    }
  }
}

export const syncLoopMachine = setup({
  types: {
    context: {} as SyncLoopContext,
    events: {} as SyncLoopEvent,
    input: {} as SyncLoopInput,
    emitted: {} as PodAdmissionRejected | PodActorFailed | PodResizeEvent,
  },
  actors: {
    podConfig: subsystemSlot<PodConfigInput>(),
    pleg: subsystemSlot<PlegInput>(),
    podWorker: subsystemSlot<PodWorkerInput>(),
    probe: subsystemSlot<ProbeInput>(),
    // Inert until provided (provideSystem requires it): a syncLoop under test removes nothing.
    containerDeletor: fromCallback<DeadContainersRemoveRequested>(() => {}),
    sandboxDeletor: fromCallback<PodSandboxesRemoveRequested>(() => {}),
    resourceManagers: fromCallback<ResourcesChanged>(() => {}),
  },
  actions: {
    /** Housekeeping's orphan kill: a runtime-only worker for each orphan (see the contract above). */
    killOrphans: enqueueActions(({ context, enqueue, system }) => {
      const { state, commands } = decideOrphanKills(context);
      if (commands.length === 0) return;
      carryOut(enqueue, system, context.input, commands);
      enqueue.assign({ orphans: state.orphans });
    }),
    failPodOfCrashedActor: enqueueActions(({ context, event, enqueue, system }) => {
      const crashed = crashedActorOf(event);
      if (!crashed) return;
      const { state, commands } = decideCrashedActor(context, crashed);
      carryOut(enqueue, system, context.input, commands);
      enqueue.assign(stateOf(state));
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
      sendToSystemIfRunning(enqueue, system, 'volumeManager', { type: 'volumes.pods.known', podUids: knownPods(context) });
    }),
    /** The resource managers' stale-state clean-up: shares of pods no source has go. */
    dropStaleResources: enqueueActions(({ context, enqueue, system }) => {
      const { state, commands } = dropStaleResources(context);
      if (commands.length === 0) return;
      enqueue.assign({ resources: state.resources });
      carryOut(enqueue, system, context.input, commands);
    }),
    /** Housekeeping's cleanupOrphanedPodCgroups: the cgroups of pods that may still run are kept. */
    cleanupOrphanedPodCgroups: enqueueActions(({ context, enqueue, system }) => {
      carryOut(enqueue, system, context.input, podCgroupsToKeep(context));
    }),
  },
}).createMachine({
  id: 'syncLoop',
  context: ({ input }) => ({
    input, pods: {}, orphans: {}, runtimePodUids: [], sourcesReady: false, rejectedManifests: [], runtime: { healthy: true, reason: '' }, pressure: [],
    node: input.node, awaitingNode: {}, nodeRefreshing: false,
    resources: input.resourceManagers?.assignments ?? {}, inventory: input.resourceManagers?.inventory ?? EMPTY_INVENTORY,
  }),
  invoke: [
    { id: 'podConfig', systemId: 'podConfig', src: 'podConfig', input: ({ context }: { context: SyncLoopContext }) => ({ ...context.input.podConfig, nodeName: context.input.nodeName }) },
    { id: 'pleg', systemId: 'pleg', src: 'pleg', input: ({ context }: { context: SyncLoopContext }) => context.input.pleg },
    { id: 'containerDeletor', systemId: 'containerDeletor', src: 'containerDeletor' },
    { id: 'sandboxDeletor', systemId: 'sandboxDeletor', src: 'sandboxDeletor' },
    { id: 'resourceManagers', systemId: 'resourceManagers', src: 'resourceManagers' },
  ],
  initial: 'waitingForSources',
  states: {
    waitingForSources: {
      meta: { description: 'pods are admitted and run; housekeeping waits until every source has been seen' },
      on: { 'pod.config.sourcesReady': { target: 'syncing', actions: [assign({ sourcesReady: true }), 'killOrphans', 'cleanupOrphanedPodDirectories', 'cleanupOrphanedPodCgroups', 'dropStaleResources'] } },
    },
    syncing: {
      meta: { description: 'every source seen: pods removed from all sources are cleaned up, orphaned pods killed' },
    },
  },
  on: {
    'api.mirrorPods.observed': { actions: 'forwardToStatusManager' },
    'pod.config.updated': {
      actions: ['forwardToStatusManager', enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decidePodConfigUpdate(context, settingsOf(context.input), event);
        carryOut(enqueue, system, context.input, commands);
        enqueue.assign({
          pods: state.pods, orphans: state.orphans, awaitingNode: state.awaitingNode, nodeRefreshing: state.nodeRefreshing, resources: state.resources,
          ...(state.cpuPinning ? { cpuPinning: state.cpuPinning } : {}),
        });
      })],
    },
    'node.object.changed': { actions: assign({ node: ({ context, event }) => decideNodeChanged(context, event).node }) },
    'node.object.refreshed': {
      actions: enqueueActions(({ context, enqueue, system }) => {
        const { state, commands } = decideNodeRefreshed(context);
        enqueue.assign({ awaitingNode: state.awaitingNode, nodeRefreshing: state.nodeRefreshing });
        carryOut(enqueue, system, context.input, commands);
      }),
    },
    'node.pressure.changed': { actions: assign({ pressure: ({ event }) => event.conditions }) },
    'devices.changed': { actions: assign({ inventory: ({ context, event }) => withDevices(context.inventory, event) }) },
    'node.shutdown.changed': { actions: assign({ shuttingDown: ({ event }) => event.shuttingDown }) },
    // Typed loosely: the children that may throw are spawned, so their error events carry ids xstate cannot list.
    ...({ 'xstate.error.actor.*': { guard: ({ event }: { event: AnyEventObject }) => crashedActorOf(event) !== null, actions: 'failPodOfCrashedActor' } } as object),
    'pod.evict.requested': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const eviction = { reason: event.reason, message: event.message, ...(event.condition ? { condition: event.condition } : {}) };
        const { state, commands } = decideEviction(context, { podUid: event.podUid, gracePeriodSeconds: event.gracePeriodSeconds, eviction, requester: event.requester ?? 'evictionManager' });
        carryOut(enqueue, system, context.input, commands);
        enqueue.assign({ pods: state.pods });
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
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideRuntimeHealth(context, event);
        enqueue.assign(stateOf(state));
        carryOut(enqueue, system, context.input, commands);
      }),
    },
    'pleg.events': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decidePlegEvents(context, context.input, event);
        enqueue.assign(stateOf(state));
        carryOut(enqueue, system, context.input, commands);
      }),
    },
    'probe.result.changed': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        carryOut(enqueue, system, context.input, decideProbeResult(context, event).commands);
      }),
    },
    'pod.status.updated': {
      actions: ['forwardToStatusManager', enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decidePodStatus(context, event.podUid, event.status);
        carryOut(enqueue, system, context.input, commands);
        enqueue.assign({ pods: state.pods, resources: state.resources });
      })],
    },
    // A pod worker reached `terminated`.
    'pod.resize.event': {
      actions: enqueueActions(({ event, enqueue }) => {
        enqueue.emit(event);
      }),
    },
    'pod.worker.terminated': {
      actions: enqueueActions(({ context, event, enqueue, system }) => {
        const { state, commands } = decideWorkerTerminated(context, event.podUid, event.exitedContainerIds);
        carryOut(enqueue, system, context.input, commands);
        enqueue.assign(stateOf(state));
      }),
    },
    'pod.resizes.retryDue': {
      actions: enqueueActions(({ context, enqueue, system }) => {
        const { state, commands } = retryDeferredResizes(context);
        carryOut(enqueue, system, context.input, commands);
        enqueue.assign(stateOf(state));
      }),
    },
  },
});
