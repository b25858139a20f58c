/**
 * Node registration and status (Go: kubelet_node_status.go registerWithAPIServer,
 * syncNodeStatus, fastStatusUpdateOnce).
 *
 * Contract:
 * - `awaitingRuntime`: the first registration waits for the runtime machine's first answer and the
 *   PLEG's first relist, at most 100 ms (Go sleeps 100 ms before its first try, by when both have
 *   usually answered),
 *   so the Node is created with the Ready condition that answer gives, as Go's initialNode does,
 *   and a runtime that is up costs no second round trip (the PATCH) before the Node is Ready.
 * - `registering`: the `registerNode` effect POSTs the initial Node. On KLT_ERR_API_ALREADY_EXISTS
 *   the machine moves to `reconciling`, where `reconcileNode` GETs the Node and patches the labels
 *   and annotations the kubelet owns (Go's reconcileExistingNode). Any other failure is retried
 *   after 100 ms, 200 ms, … capped at 7 s.
 *   Once registered, `node.registered` (with the uid) goes to the `nodeLease` actor and is emitted.
 *   With registerNode=false it only reads the Node (`getNode`, same back-off) until it exists.
 * - `updating`: every nodeStatusUpdateFrequency (×(1 + 0.04 × jitter)), the `readNodeFacts`
 *   effect lists images and stamps the time; the status is computed by computeNodeStatus and sent
 *   (`patchNodeStatus`, through the heartbeat client) only when it changed apart from heartbeat
 *   times, or when nodeStatusReportFrequency has passed since the last report. A failed PATCH is
 *   retried at once, five tries in all (Go: nodeStatusUpdateRetry), the effect re-opening
 *   connections from the second try on; then the next period.
 * - Until the node has reported Ready=True (and at most 2 minutes, Go's nodeReadyGracePeriod) the
 *   period is 100 ms, so Ready reaches the API server as soon as the runtime is up. In that time
 *   a not-Ready status is held back for one regular period: a restarted kubelet whose Node is
 *   still Ready does not flap it NotReady while its first runtime check is under way (Go does).
 * - Health arrives as events at any time (`node.runtime.health`, `node.pleg.health`, the
 *   eviction manager's `node.pressure.changed`, the node shutdown manager's
 *   `node.shutdown.changed`) and is used by the next update, as in Go; a shutdown's starts one now.
 * - The Node as the API server has it (Go's node informer): the `watchNode` effect lists and
 *   watches it from the start and sends `node.object.observed` only when its labels, taints or pod
 *   CIDR changed (status heartbeats are not news). A reading no newer than the one kept (by
 *   resourceVersion, Go's isNewer) is dropped; otherwise its labels and taints go to the syncLoop
 *   (`node.object.changed`, admission's node). `node.refresh.requested` (the syncLoop, when node
 *   affinity alone refused a pod) is handed to `watchNode`, which GETs the Node and answers
 *   `node.refresh.answered`, passed on to the syncLoop (`node.object.refreshed`) after the Node it read.
 * - Pod CIDR (Go's updateNode → updatePodCIDR): at each status update, a pod CIDR of the Node that
 *   the runtime has not been given yet is given to it first (`updatePodCIDR`, CRI
 *   UpdateRuntimeConfig); a failure is logged by the effect and tried again at the next update.
 * - `node.readiness.changed` is emitted when the reported Ready status flips, and
 *   `node.status.event` for each event Go's condition setters record (NodeHasSufficientMemory …
 *   at creation, NodeReady / NodeNotReady on a flip), for the event recorder.
 * Effects answer with data (`ApiAnswer`), never throw. Pure: time comes on the answers.
 */
import { and, assign, emit, enqueueActions, fromCallback, fromPromise, sendTo, setup, type AnyEventObject } from 'xstate';
import { doneOutput } from './done-output.js';
import { sendToSystemIfRunning } from './system-sends.js';
import type { SerializedError } from '../domain/errors.js';
import type { NodeCondition, NodeObject, NodeStatus } from '../domain/node-status/api-objects.js';
import { jitteredMs, retryDelayMs } from '../domain/node-status/backoff.js';
import type { NodeRegistrationSpec } from '../domain/node-status/initial-node.js';
import { isNewerLiveNode, sameLiveNode, type LiveNode } from '../domain/node-status/live-node.js';
import { conditionEventReasons, isReady, type NodeHealth } from '../domain/node-status/node-conditions.js';
import type { ExtendedResourceCount } from '../domain/device-manager/devices.js';
import { computeNodeStatus, nodeStatusChanged, type ListedImage, type NodeStaticFacts } from '../domain/node-status/node-status.js';
import type { PressureChangedEvent } from './eviction-manager.machine.js';
import type { NodeRegisteredEvent } from './node-lease.machine.js';
import type { NodeShutdownChangedEvent } from './node-shutdown.machine.js';

export const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;
export const NODE_STATUS_REPORT_FREQUENCY_MS = 300_000;
/** Go: fastStatusUpdateOnce's ticker. */
export const FAST_STATUS_UPDATE_MS = 100;
/** Go: nodeReadyGracePeriod, how long fastStatusUpdateOnce keeps trying. */
export const FAST_STATUS_UPDATE_LIMIT_MS = 120_000;
/** Go: registerWithAPIServer's sleep before its first try; the longest the first registration waits for health. */
export const FIRST_REGISTRATION_HOLD_MS = 100;
/** Go: nodeStatusUpdateRetry. */
export const NODE_STATUS_UPDATE_TRIES = 5;
/** Go: wait.JitterUntil(kl.syncNodeStatus, kl.nodeStatusUpdateFrequency, 0.04, …). */
export const NODE_STATUS_JITTER_FACTOR = 0.04;

export interface NodeStatusMachineInput {
  registration: NodeRegistrationSpec;
  facts: NodeStaticFacts;
  updateFrequencyMs?: number;
  reportFrequencyMs?: number;
  /** A number in [0, 1) drawn by the caller (and so recorded): the period's jitter. */
  jitter: number;
  /** When the machine started, on the injected clock (bounds the fast updates). */
  startedAtMs: number;
  /** registerNode (default true). False: never create or change the Node, only read it and report status (Go). */
  registerNode?: boolean;
  /** The pod CIDR the runtime was given at start-up (the configured podCIDR), '' or absent for none. */
  runtimePodCIDR?: string;
}

export interface NodeRuntimeHealthEvent {
  type: 'node.runtime.health';
  runtimeReady: boolean;
  networkReady: boolean;
  /** Why not ready (the CRI condition's reason and message, or the runtime machine's reason). */
  message?: string;
  observedAtMs: number;
}

export interface NodePlegHealthEvent {
  type: 'node.pleg.health';
  healthy: boolean;
  /** e.g. "pleg was last seen active 3m10s ago; threshold is 3m0s". */
  message?: string;
  observedAtMs: number;
}

/** From `watchNode`: the Node's labels, taints or pod CIDR differ from what it last sent. */
export interface NodeObjectObservedEvent { type: 'node.object.observed'; node: LiveNode; observedAtMs: number }
/** From the syncLoop: read the Node again now (Go's synchronous GET when only node affinity failed). */
export interface NodeRefreshRequestedEvent { type: 'node.refresh.requested' }
/** From `watchNode`, for a refresh: the Node as the GET read it, or why it could not. */
export type NodeRefreshAnsweredEvent = { type: 'node.refresh.answered'; observedAtMs: number } & ({ node: LiveNode } | { error: SerializedError });

/** From the device manager: the extended resources its plugins serve, reported at the next update (Go's GetCapacity). */
export interface NodeDevicesChangedEvent { type: 'node.devices.changed'; resources: Record<string, ExtendedResourceCount> }

export type NodeStatusEvent = NodeRuntimeHealthEvent | NodePlegHealthEvent | PressureChangedEvent | NodeObjectObservedEvent | NodeRefreshRequestedEvent | NodeRefreshAnsweredEvent | NodeShutdownChangedEvent | NodeDevicesChangedEvent;

/** Emitted (actor.on) for the event recorder: RegisteredNode, NodeReady / NodeNotReady. */
export type NodeStatusEmitted =
  | NodeRegisteredEvent
  | { type: 'node.readiness.changed'; nodeName: string; ready: boolean; message: string }
  /** One per node event Go's condition setters record (NodeHasSufficientMemory, NodeReady, …): Normal type. */
  | { type: 'node.status.event'; nodeName: string; reason: string; message: string };

export type ApiAnswer<T> = { ok: true; value: T; observedAtMs: number } | { ok: false; error: SerializedError; observedAtMs: number };

export interface RegisterNodeInput { registration: NodeRegistrationSpec; facts: NodeStaticFacts; health: NodeHealth }
export interface ReconcileNodeInput { registration: NodeRegistrationSpec }
export interface PatchNodeStatusInput { nodeName: string; status: NodeStatus; attempt: number }
export interface NodeFacts {
  images: ListedImage[];
  /** The attachable volumes in use (Go's GetVolumesInUse), when a volume manager runs. */
  volumesInUse?: string[];
}
export interface WatchNodeInput { nodeName: string }
export interface UpdatePodCIDRInput { podCIDR: string; previous: string }

export interface NodeStatusContext {
  registration: NodeRegistrationSpec;
  registerNode: boolean;
  facts: NodeStaticFacts;
  updatePeriodMs: number;
  reportFrequencyMs: number;
  startedAtMs: number;
  health: NodeHealth;
  nodeUid: string | null;
  /** Registration tries that failed in a row. */
  registerFailures: number;
  /** The status last sent (or read back at registration); null before the first. */
  lastSent: NodeStatus | null;
  lastReportedAtMs: number | null;
  /** The status computed by the latest update, waiting to be sent. */
  pending: NodeStatus | null;
  pendingAtMs: number;
  patchAttempt: number;
  /** Ready=True has been reported once: fast updates are over. */
  reportedReady: boolean;
  lastError: SerializedError | null;
  /** The newest reading of the Node's labels, taints and pod CIDR; null until one came. */
  apiNode: LiveNode | null;
  /** The pod CIDR the runtime was given ('' none yet): Go's runtimeState.podCIDR. */
  runtimePodCIDR: string;
  /** The device plugins' resources: capacity and allocatable counts by name. */
  extendedResources: Record<string, ExtendedResourceCount>;
}

export const NODE_STATUS_EFFECTS = ['registerNode', 'reconcileNode', 'getNode', 'readNodeFacts', 'patchNodeStatus', 'watchNode', 'updatePodCIDR'] as const;

// Only invoked effects' onDone call this.
const answerOf = <T>(event: AnyEventObject) => doneOutput<ApiAnswer<T>>(event);
const okValue = <T>(event: AnyEventObject) => doneOutput<Extract<ApiAnswer<T>, { ok: true }>>(event);
const failure = (event: AnyEventObject) => doneOutput<Extract<ApiAnswer<unknown>, { ok: false }>>(event).error;
const conditionsOf = (s: NodeStatus | null): NodeCondition[] => s?.conditions ?? [];
const readyCondition = (s: NodeStatus | null) => conditionsOf(s).find((c) => c.type === 'Ready');

export const nodeStatusMachine = setup({
  types: {
    context: {} as NodeStatusContext,
    events: {} as NodeStatusEvent,
    input: {} as NodeStatusMachineInput,
    emitted: {} as NodeStatusEmitted,
  },
  actors: {
    registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async () => {
      throw new Error('actor registerNode was not provided');
    }),
    reconcileNode: fromPromise<ApiAnswer<NodeObject>, ReconcileNodeInput>(async () => {
      throw new Error('actor reconcileNode was not provided');
    }),
    getNode: fromPromise<ApiAnswer<NodeObject>, { nodeName: string }>(async () => {
      throw new Error('actor getNode was not provided');
    }),
    readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => {
      throw new Error('actor readNodeFacts was not provided');
    }),
    patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async () => {
      throw new Error('actor patchNodeStatus was not provided');
    }),
    // Inert until provided: a node status under test follows no Node unless it says so.
    watchNode: fromCallback<NodeRefreshRequestedEvent, WatchNodeInput>(() => {}),
    updatePodCIDR: fromPromise<ApiAnswer<string>, UpdatePodCIDRInput>(async () => {
      throw new Error('actor updatePodCIDR was not provided');
    }),
  },
  delays: {
    registerRetry: ({ context }) => retryDelayMs(context.registerFailures),
    firstRegistrationHold: FIRST_REGISTRATION_HOLD_MS,
    updatePeriod: ({ context }) => (isFastUpdating(context) ? FAST_STATUS_UPDATE_MS : context.updatePeriodMs),
  },
  guards: {
    isRegistering: ({ context }) => context.registerNode,
    // A retry does not wait again: a runtime that never answers must not slow registration further.
    isRuntimeKnownOrRetry: ({ context }) => (context.health.runtime !== null && context.health.pleg !== null) || context.registerFailures > 0,
    isOk: ({ event }) => answerOf<unknown>(event).ok,
    isAlreadyExists: ({ event }) => !answerOf<unknown>(event).ok && failure(event).code === 'KLT_ERR_API_ALREADY_EXISTS',
    isDue: ({ context }) => isDue(context),
    hasTriesLeft: ({ context }) => context.patchAttempt + 1 < NODE_STATUS_UPDATE_TRIES,
    hasPodCIDRToGive: ({ context }) => podCIDRToGive(context) !== null,
  },
  actions: {
    recordRuntimeHealth: assign(({ context, event }) => {
      const e = event as NodeRuntimeHealthEvent;
      const runtime = { runtimeReady: e.runtimeReady, networkReady: e.networkReady, ...(e.message === undefined ? {} : { message: e.message }) };
      return { health: { ...context.health, runtime } };
    }),
    recordPlegHealth: assign(({ context, event }) => {
      const e = event as NodePlegHealthEvent;
      return { health: { ...context.health, pleg: { healthy: e.healthy, ...(e.message === undefined ? {} : { message: e.message }) } } };
    }),
    recordPressure: assign(({ context, event }) => ({ health: { ...context.health, pressure: (event as PressureChangedEvent).conditions } })),
    recordShutdown: assign(({ context, event }) => ({ health: { ...context.health, shuttingDown: (event as NodeShutdownChangedEvent).shuttingDown } })),
    /** Keep the server's Node: its uid for the lease, its conditions for transition times. */
    recordRegistered: assign(({ event }) => {
      const node = okValue<NodeObject>(event).value;
      return { nodeUid: node.metadata.uid ?? null, lastSent: node.status ?? null, registerFailures: 0, lastError: null };
    }),
    announceRegistered: enqueueActions(({ context, enqueue, system }) => {
      const registered: NodeRegisteredEvent = { type: 'node.registered', nodeName: context.registration.nodeName, uid: context.nodeUid ?? '' };
      // The lease is stopped before this machine: a registration that lands during the stop finds it gone.
      sendToSystemIfRunning(enqueue, system, 'nodeLease', registered);
      // Mirror pods are owned by the Node: the status manager, when there is one, waits for its uid.
      if (context.nodeUid) sendToSystemIfRunning(enqueue, system, 'statusManager', { type: 'node.uid.known', nodeUid: context.nodeUid });
      enqueue.emit(registered);
    }),
    recordRegisterFailure: assign(({ context, event }) => ({ registerFailures: context.registerFailures + 1, lastError: failure(event) })),
    computeStatus: assign(({ context, event }) => {
      const facts = okValue<NodeFacts>(event);
      const pending = computeNodeStatus({
        facts: context.facts,
        health: context.health,
        images: facts.value.images,
        ...(facts.value.volumesInUse ? { volumesInUse: facts.value.volumesInUse } : {}),
        previousConditions: conditionsOf(context.lastSent),
        nowMs: facts.observedAtMs,
        extendedResources: context.extendedResources,
      });
      return { pending, pendingAtMs: facts.observedAtMs, patchAttempt: 0 };
    }),
    announceReadiness: enqueueActions(({ context, enqueue }) => {
      const nodeName = context.registration.nodeName;
      for (const reason of conditionEventReasons(conditionsOf(context.lastSent), conditionsOf(context.pending))) {
        enqueue(emit({ type: 'node.status.event', nodeName, reason, message: `Node ${nodeName} status is now: ${reason}` }));
      }
      const before = readyCondition(context.lastSent);
      const after = readyCondition(context.pending);
      if (after === undefined || before?.status === after.status) return;
      enqueue(emit({ type: 'node.readiness.changed', nodeName, ready: after.status === 'True', message: after.message }));
    }),
    /**
     * A Node we created: the events its first conditions stand for (Go records them in initialNode's
     * setters); created Ready, it ends the fast updates as a Ready PATCH does. (A Node found existing
     * does not: its Ready is the previous run's, and the first check of this one is still to come.)
     */
    announceCreated: enqueueActions(({ context, enqueue, event }) => {
      const nodeName = context.registration.nodeName;
      const conditions = okValue<NodeObject>(event).value.status?.conditions ?? [];
      if (isReady(conditions)) enqueue.assign({ reportedReady: true });
      for (const reason of conditionEventReasons([], conditions)) {
        enqueue(emit({ type: 'node.status.event', nodeName, reason, message: `Node ${nodeName} status is now: ${reason}` }));
      }
    }),
    recordSent: assign(({ context }) => ({
      lastSent: context.pending,
      lastReportedAtMs: context.pendingAtMs,
      reportedReady: context.reportedReady || isReady(conditionsOf(context.pending)),
      pending: null,
      lastError: null,
    })),
    recordPatchFailure: assign(({ context, event }) => ({ patchAttempt: context.patchAttempt + 1, lastError: failure(event) })),
    /** A newer reading of the Node: kept, and its labels and taints given to admission when they changed. */
    recordApiNode: enqueueActions(({ context, event, enqueue, system }) => {
      const node = liveNodeOfEvent(event);
      if (!node || !isNewerLiveNode(node, context.apiNode)) return;
      const before = context.apiNode;
      enqueue.assign({ apiNode: node });
      if (before && sameLiveNode({ ...before, podCIDR: '' }, { ...node, podCIDR: '' })) return;
      // The syncLoop is spawned after this machine, in the same step: it is there for any answer.
      sendToSystemIfRunning(enqueue, system, 'syncLoop', { type: 'node.object.changed', labels: node.labels, taints: node.taints });
    }),
    answerRefresh: enqueueActions(({ enqueue, system }) => {
      sendToSystemIfRunning(enqueue, system, 'syncLoop', { type: 'node.object.refreshed' });
    }),
    recordPodCIDRGiven: assign(({ event }) => ({ runtimePodCIDR: okValue<string>(event).value })),
  },
}).createMachine({
  id: 'nodeStatus',
  context: ({ input }) => ({
    registration: input.registration,
    registerNode: input.registerNode ?? true,
    facts: input.facts,
    updatePeriodMs: jitteredMs(input.updateFrequencyMs ?? NODE_STATUS_UPDATE_FREQUENCY_MS, NODE_STATUS_JITTER_FACTOR, input.jitter),
    reportFrequencyMs: input.reportFrequencyMs ?? NODE_STATUS_REPORT_FREQUENCY_MS,
    startedAtMs: input.startedAtMs,
    health: { runtime: null, pleg: null },
    nodeUid: null,
    registerFailures: 0,
    lastSent: null,
    lastReportedAtMs: null,
    pending: null,
    pendingAtMs: input.startedAtMs,
    patchAttempt: 0,
    reportedReady: false,
    lastError: null,
    apiNode: null,
    runtimePodCIDR: input.runtimePodCIDR ?? '',
    extendedResources: {},
  }),
  // Go's node informer runs from NewMainKubelet on: before registration it finds no Node yet.
  invoke: { id: 'watchNode', src: 'watchNode', input: ({ context }: { context: NodeStatusContext }) => ({ nodeName: context.registration.nodeName }) },
  on: {
    'node.runtime.health': { actions: 'recordRuntimeHealth' },
    'node.pleg.health': { actions: 'recordPlegHealth' },
    'node.pressure.changed': { actions: 'recordPressure' },
    'node.object.observed': { actions: 'recordApiNode' },
    'node.refresh.requested': { actions: sendTo('watchNode', ({ event }) => event) },
    'node.refresh.answered': { actions: ['recordApiNode', 'answerRefresh'] },
    'node.shutdown.changed': { actions: 'recordShutdown' },
    'node.devices.changed': { actions: assign({ extendedResources: ({ event }) => event.resources }) },
  },
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isRegistering', target: 'awaitingRuntime' }, { target: 'adopting' }],
    },
    awaitingRuntime: {
      meta: { description: 'before registering: the first runtime status answer and PLEG relist, at most 100 ms' },
      always: { guard: 'isRuntimeKnownOrRetry', target: 'registering' },
      after: { firstRegistrationHold: 'registering' },
    },
    adopting: {
      meta: { description: 'registerNode is false: waiting for the Node to exist' },
      invoke: {
        id: 'getNode',
        src: 'getNode',
        input: ({ context }) => ({ nodeName: context.registration.nodeName }),
        onDone: [
          { guard: 'isOk', target: 'updating', actions: ['recordRegistered', 'announceRegistered'] },
          { target: 'registrationBackoff', actions: 'recordRegisterFailure' },
        ],
        onError: { target: 'registrationBackoff', actions: assign(({ context }) => ({ registerFailures: context.registerFailures + 1 })) },
      },
    },
    registering: {
      meta: { description: 'creating the Node object' },
      invoke: {
        id: 'registerNode',
        src: 'registerNode',
        input: ({ context }) => ({ registration: context.registration, facts: context.facts, health: context.health }),
        onDone: [
          { guard: 'isOk', target: 'updating', actions: ['recordRegistered', 'announceRegistered', 'announceCreated'] },
          { guard: 'isAlreadyExists', target: 'reconciling' },
          { target: 'registrationBackoff', actions: 'recordRegisterFailure' },
        ],
        onError: { target: 'registrationBackoff', actions: assign(({ context }) => ({ registerFailures: context.registerFailures + 1 })) },
      },
    },
    reconciling: {
      meta: { description: 'the Node exists: reading it and bringing its labels and annotations in line' },
      invoke: {
        id: 'reconcileNode',
        src: 'reconcileNode',
        input: ({ context }) => ({ registration: context.registration }),
        onDone: [
          { guard: 'isOk', target: 'updating', actions: ['recordRegistered', 'announceRegistered'] },
          { target: 'registrationBackoff', actions: 'recordRegisterFailure' },
        ],
        onError: { target: 'registrationBackoff', actions: assign(({ context }) => ({ registerFailures: context.registerFailures + 1 })) },
      },
    },
    registrationBackoff: {
      meta: { description: 'registration failed: retrying after 100 ms … 7 s' },
      after: { registerRetry: 'starting' },
    },
    updating: {
      meta: { description: 'registered: reporting the node status' },
      initial: 'collecting',
      states: {
        collecting: {
          invoke: {
            id: 'readNodeFacts',
            src: 'readNodeFacts',
            input: ({ context }) => ({ nodeName: context.registration.nodeName }),
            onDone: [
              { guard: and(['isOk', 'hasPodCIDRToGive']), target: 'givingPodCIDR', actions: 'computeStatus' },
              { guard: 'isOk', target: 'deciding', actions: 'computeStatus' },
              { target: 'waiting', actions: assign(({ event }) => ({ lastError: failure(event) })) },
            ],
            onError: 'waiting',
          },
        },
        givingPodCIDR: {
          invoke: {
            id: 'updatePodCIDR',
            src: 'updatePodCIDR',
            input: ({ context }) => ({ podCIDR: podCIDRToGive(context) ?? '', previous: context.runtimePodCIDR }),
            onDone: [{ guard: 'isOk', target: 'deciding', actions: 'recordPodCIDRGiven' }, { target: 'deciding' }],
            onError: 'deciding',
          },
        },
        deciding: {
          always: [{ guard: 'isDue', target: 'sending' }, { target: 'waiting' }],
        },
        sending: {
          invoke: {
            id: 'patchNodeStatus',
            src: 'patchNodeStatus',
            input: ({ context }) => ({ nodeName: context.registration.nodeName, status: context.pending ?? {}, attempt: context.patchAttempt }),
            onDone: [
              { guard: 'isOk', target: 'waiting', actions: ['announceReadiness', 'recordSent'] },
              { guard: 'hasTriesLeft', target: 'retrying', actions: 'recordPatchFailure' },
              { target: 'waiting', actions: 'recordPatchFailure' },
            ],
            onError: [{ guard: 'hasTriesLeft', target: 'retrying', actions: assign(({ context }) => ({ patchAttempt: context.patchAttempt + 1 })) }, { target: 'waiting' }],
          },
        },
        // Re-enters `sending` so a fresh effect runs (Go retries at once within one sync).
        retrying: { always: 'sending' },
        // Go's shutdown manager syncs the node status at once when a shutdown begins.
        waiting: { after: { updatePeriod: 'collecting' }, on: { 'node.shutdown.changed': { target: 'collecting', actions: 'recordShutdown' } } },
      },
    },
  },
});

/** Changed, or never reported, or the report frequency is up; a not-Ready status waits out the start. */
function isDue(context: NodeStatusContext): boolean {
  const pending = context.pending;
  if (pending === null) return false;
  const due =
    nodeStatusChanged(context.lastSent, pending) ||
    context.lastReportedAtMs === null ||
    context.pendingAtMs - context.lastReportedAtMs >= context.reportFrequencyMs;
  if (!due) return false;
  const holdNotReady = isFastUpdating(context) && context.pendingAtMs - context.startedAtMs < context.updatePeriodMs;
  return isReady(conditionsOf(pending)) || !holdNotReady;
}

/** The Node's pod CIDR when the runtime has not been given it (Go: updatePodCIDR when spec.podCIDRs is set). */
function podCIDRToGive(context: NodeStatusContext): string | null {
  const wanted = context.apiNode?.podCIDR ?? '';
  return wanted !== '' && wanted !== context.runtimePodCIDR ? wanted : null;
}

/** The Node a watch event or a refresh's answer carries (a failed refresh carries none). */
function liveNodeOfEvent(event: AnyEventObject): LiveNode | null {
  const node = (event as Partial<NodeObjectObservedEvent>).node;
  return node ?? null;
}

/** Fast updates until Ready=True was reported, for at most FAST_STATUS_UPDATE_LIMIT_MS. */
function isFastUpdating(context: NodeStatusContext): boolean {
  return !context.reportedReady && context.pendingAtMs - context.startedAtMs < FAST_STATUS_UPDATE_LIMIT_MS;
}
