/**
 * The eviction manager (Go: pkg/kubelet/eviction, managerImpl.Start and synchronize): every
 * monitoring period (10 s) it reads the node's signals, reports the pressure conditions, and when a
 * threshold is past its grace period reclaims: node-level first for disk (image and container GC),
 * then one pod per cycle.
 *
 * Contract:
 * - It starts in `waitingForRuntime`: Go starts the eviction manager in
 *   initializeRuntimeDependentModules, once updateRuntimeUp first saw the runtime ready; here the
 *   runtime machine's `runtime.up` (its first RuntimeReady answer, sent once, the container
 *   manager's trigger too) does that. Then
 *   `observing` runs at once (Go's loop synchronizes before its first sleep), and again after each
 *   `waiting` period.
 * - The `observe` effect answers with the signal observations, whether the image filesystem is its
 *   own device, and the time of the reading on the actor system's clock; null when the read failed
 *   (the effect logs why; Go: "failed to get summary stats"), which ends the cycle. The pods are
 *   asked for only when one must go (`listCandidates`: the active pods with their usage from that
 *   same reading), so an unpressured node journals a few numbers every 10 s, not its pods.
 * - With localStorageCapacityIsolation, a good reading goes through `checkingLocalStorage` first:
 *   the `listLocalStorage` effect answers the active pods that set an emptyDir sizeLimit or an
 *   ephemeral-storage limit, with their usage (no summary read when none does), and the first one
 *   over a limit is evicted (domain/eviction/local-storage.ts) before any threshold is weighed, as
 *   Go's synchronize returns after localStorageEviction.
 * - The pure steps are domain/eviction/synchronize.ts. When the reported conditions change, the
 *   machine sends `node.pressure.changed` to `nodeStatus` (the Node's pressure conditions) and to
 *   `syncLoop` (admission).
 * - With a threshold to act on, it emits `eviction.threshold.met` (the node's EvictionThresholdMet
 *   Warning event). For disk signals `reclaiming` runs image and container GC (`reclaimNodeLevel`)
 *   and answers with a fresh reading: resolved when no threshold is met counting minimum reclaim.
 *   Otherwise `listingPods` asks for the candidates and `ranking` picks one; `evicting` emits `pod.evicted` (the pod's Evicted Warning
 *   event) and asks the syncLoop to kill the first pod that is not critical
 *   (`pod.evict.requested`: grace 1 s for a hard threshold, else evictionMaxPodGracePeriod capped by
 *   the pod's own; status Failed, reason Evicted, Go's message), and waits for
 *   `pod.eviction.finished`, at most podCleanupTimeout (30 s). After an eviction the next cycle
 *   starts at once, as Go synchronizes again after waitForPodsCleanup instead of sleeping.
 * Pure: time arrives on the effects' answers (`observedAtMs`); periods run on the injected clock.
 */
import { and, assign, enqueueActions, fromPromise, setup } from 'xstate';
import { doneOutput } from './done-output.js';
import { sendToSystemIfRunning } from './system-sends.js';
import type { EvictionCandidate } from '../domain/eviction/candidates.js';
import { disruptionTargetCondition, EVICTED_REASON, THRESHOLD_MET_REASON, thresholdMetMessage } from '../domain/eviction/messages.js';
import type { Observations } from '../domain/eviction/observations.js';
import type { PressureCondition, Signal, StarvedResource } from '../domain/eviction/signals.js';
import {
  chooseEviction,
  EVICTION_MONITORING_PERIOD_MS,
  initialEvictionMemory,
  isReclaimedByNode,
  nodeReclaimNeeded,
  observeCycle,
  POD_CLEANUP_TIMEOUT_MS,
  type EvictionChoice,
  type EvictionMemory,
  type EvictionSettings,
  type Starvation,
} from '../domain/eviction/synchronize.js';
import type { Threshold } from '../domain/eviction/thresholds.js';
import { chooseLocalStorageEviction, type LocalStorageSubject } from '../domain/eviction/local-storage.js';
import type { PodCondition } from '../domain/pod/types.js';

export interface EvictionManagerInput {
  /** The node the EvictionThresholdMet event is about. */
  nodeName: string;
  thresholds: Threshold[];
  pressureTransitionPeriodMs: number;
  maxPodGracePeriodSeconds: number;
  /** localStorageCapacityIsolation: every cycle, pods over an emptyDir sizeLimit or an ephemeral-storage limit are evicted first. */
  localStorageCapacityIsolation: boolean;
  monitoringPeriodMs?: number;
}

export interface EvictionReading {
  observations: Observations;
  dedicatedImageFs: boolean;
  observedAtMs: number;
}

/** A failed read answers null (the effect logs why): the cycle ends without a decision. */
export type ObserveOutput = EvictionReading | null;
/** The fresh observations after image and container GC, or null when they could not be read. */
export type ReclaimOutput = { observations: Observations | null };

export interface ReclaimInput { signal: Signal; resource: StarvedResource }

/** The active pods with their usage from the last reading (Go's activePods and statsFunc). */
export type ListCandidatesOutput = EvictionCandidate[];

/** The active pods that set a local storage limit, with their usage (none read when no pod sets one). */
export type ListLocalStorageOutput = LocalStorageSubject[];

export interface EvictionManagerContext {
  nodeName: string;
  settings: EvictionSettings;
  localStorageCapacityIsolation: boolean;
  monitoringPeriodMs: number;
  memory: EvictionMemory;
  /** The pressure conditions the node reports True. */
  conditions: PressureCondition[];
  reading: EvictionReading | null;
  starvation: Starvation | null;
  choice: EvictionChoice | null;
  evictions: number;
}

/** Sent to nodeStatus and to the syncLoop when the reported pressure conditions change. */
export interface PressureChangedEvent { type: 'node.pressure.changed'; conditions: PressureCondition[] }

/** Sent to the syncLoop: kill this pod as an eviction (status Failed, reason Evicted, `message`, the DisruptionTarget condition). */
export interface EvictRequestedEvent {
  type: 'pod.evict.requested';
  podUid: string;
  gracePeriodSeconds: number;
  reason: string;
  message: string;
  /** Go's DisruptionTarget condition, when the eviction adds one. */
  condition?: PodCondition;
}

/** Emitted for the event recorder: the node's EvictionThresholdMet Warning event. */
export interface ThresholdMetEmitted { type: 'eviction.threshold.met'; nodeName: string; reason: string; message: string }

/** Emitted for the event recorder: the evicted pod's Warning event, with Go's annotations. */
export interface PodEvictedEmitted {
  type: 'pod.evicted';
  pod: { namespace: string; name: string; uid: string };
  reason: string;
  message: string;
  annotations: Record<string, string>;
}

export type EvictionManagerEvent =
  | { type: 'runtime.up' }
  /** From the syncLoop: the pod's worker finished the kill (evicted), or there was no such active pod. */
  | { type: 'pod.eviction.finished'; podUid: string; evicted: boolean };

export const EVICTION_MANAGER_EFFECTS = ['observe', 'listLocalStorage', 'reclaimNodeLevel', 'listCandidates'] as const;

const sameConditions = (a: readonly PressureCondition[], b: readonly PressureCondition[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export const evictionManagerMachine = setup({
  types: {
    context: {} as EvictionManagerContext,
    events: {} as EvictionManagerEvent,
    input: {} as EvictionManagerInput,
    emitted: {} as ThresholdMetEmitted | PodEvictedEmitted,
  },
  actors: {
    observe: fromPromise<ObserveOutput, Record<string, never>>(async () => {
      throw new Error('actor observe was not provided');
    }),
    reclaimNodeLevel: fromPromise<ReclaimOutput, ReclaimInput>(async () => {
      throw new Error('actor reclaimNodeLevel was not provided');
    }),
    listCandidates: fromPromise<ListCandidatesOutput, Record<string, never>>(async () => {
      throw new Error('actor listCandidates was not provided');
    }),
    listLocalStorage: fromPromise<ListLocalStorageOutput, Record<string, never>>(async () => {
      throw new Error('actor listLocalStorage was not provided');
    }),
  },
  delays: {
    monitoringPeriod: ({ context }) => context.monitoringPeriodMs,
    podCleanupTimeout: POD_CLEANUP_TIMEOUT_MS,
  },
  guards: {
    isStarved: ({ context }) => context.starvation !== null,
    checksLocalStorage: ({ context, event }) => context.localStorageCapacityIsolation && doneOutput<ObserveOutput>(event) !== null,
    needsNodeReclaim: ({ context }) =>
      context.starvation !== null && nodeReclaimNeeded(context.starvation.signal, context.reading?.dedicatedImageFs ?? false),
    isReclaimedByNode: ({ context, event }) => {
      const fresh = doneOutput<ReclaimOutput>(event).observations;
      return fresh !== null && isReclaimedByNode(context.settings, fresh);
    },
    hasChoice: ({ context }) => context.choice !== null,
    isOurEviction: ({ context, event }) => event.type === 'pod.eviction.finished' && event.podUid === context.choice?.uid,
    isEvicted: ({ event }) => event.type === 'pod.eviction.finished' && event.evicted,
  },
  actions: {
    recordCycle: enqueueActions(({ context, event, enqueue, system }) => {
      const reading = doneOutput<ObserveOutput>(event);
      if (reading === null) {
        enqueue.assign({ reading: null, starvation: null });
        return;
      }
      const outcome = observeCycle(context.settings, context.memory, reading.observations, reading.observedAtMs);
      enqueue.assign({ memory: outcome.memory, conditions: outcome.conditions, reading, starvation: outcome.starvation, choice: null });
      if (sameConditions(outcome.conditions, context.conditions)) return;
      const changed: PressureChangedEvent = { type: 'node.pressure.changed', conditions: outcome.conditions };
      // nodeStatus runs in cluster mode only; the syncLoop is stopped before this manager.
      for (const id of ['nodeStatus', 'syncLoop'] as const) sendToSystemIfRunning(enqueue, system, id, changed);
    }),
    announceThresholdMet: enqueueActions(({ context, enqueue }) => {
      if (!context.starvation) return;
      enqueue.emit({ type: 'eviction.threshold.met', nodeName: context.nodeName, reason: THRESHOLD_MET_REASON, message: thresholdMetMessage(context.starvation.resource) });
    }),
    chooseVictim: assign({
      choice: ({ context, event }) =>
        context.starvation && context.reading
          ? chooseEviction(context.settings, context.starvation, doneOutput<ListCandidatesOutput>(event), context.reading.observations)
          : null,
    }),
    requestEviction: enqueueActions(({ context, enqueue, system }) => {
      const choice = context.choice;
      if (!choice) return;
      enqueue.emit({
        type: 'pod.evicted',
        pod: { namespace: choice.namespace, name: choice.name, uid: choice.uid },
        reason: EVICTED_REASON,
        message: choice.message,
        annotations: choice.annotations,
      });
      const request: EvictRequestedEvent = {
        type: 'pod.evict.requested', podUid: choice.uid, gracePeriodSeconds: choice.gracePeriodSeconds, reason: EVICTED_REASON, message: choice.message,
        ...(choice.disruptionTarget ? { condition: disruptionTargetCondition(choice.message) } : {}),
      };
      // The syncLoop is stopped before this manager: an eviction chosen during the stop has no one to kill the pod.
      sendToSystemIfRunning(enqueue, system, 'syncLoop', request);
    }),
    chooseLocalStorageVictim: assign({
      choice: ({ context, event }) => chooseLocalStorageEviction(doneOutput<ListLocalStorageOutput>(event), context.reading?.dedicatedImageFs ?? false),
    }),
    countEviction: assign({ evictions: ({ context }) => context.evictions + 1 }),
  },
}).createMachine({
  id: 'evictionManager',
  context: ({ input }) => ({
    nodeName: input.nodeName,
    settings: {
      thresholds: input.thresholds,
      pressureTransitionPeriodMs: input.pressureTransitionPeriodMs,
      maxPodGracePeriodSeconds: input.maxPodGracePeriodSeconds,
    },
    localStorageCapacityIsolation: input.localStorageCapacityIsolation,
    monitoringPeriodMs: input.monitoringPeriodMs ?? EVICTION_MONITORING_PERIOD_MS,
    memory: initialEvictionMemory(),
    conditions: [],
    reading: null,
    starvation: null,
    choice: null,
    evictions: 0,
  }),
  initial: 'waitingForRuntime',
  states: {
    waitingForRuntime: {
      meta: { description: 'started in initializeRuntimeDependentModules: once the runtime is first ready' },
      on: {
        'runtime.up': { target: 'observing' },
      },
    },
    waiting: {
      meta: { description: 'until the next monitoring period (10 s)' },
      after: { monitoringPeriod: 'observing' },
    },
    observing: {
      meta: { description: 'reading the signals and the active pods (a summary read)' },
      invoke: {
        id: 'observe',
        src: 'observe',
        input: () => ({}),
        onDone: [
          { guard: 'checksLocalStorage', target: 'checkingLocalStorage', actions: 'recordCycle' },
          { target: 'deciding', actions: 'recordCycle' },
        ],
        onError: { target: 'waiting' },
      },
    },
    checkingLocalStorage: {
      meta: { description: 'pods over an emptyDir sizeLimit or an ephemeral-storage limit go first, whatever the thresholds' },
      invoke: {
        id: 'listLocalStorage',
        src: 'listLocalStorage',
        input: () => ({}),
        onDone: { target: 'weighingLocalStorage', actions: 'chooseLocalStorageVictim' },
        onError: { target: 'deciding' },
      },
    },
    weighingLocalStorage: {
      meta: { description: 'the first pod over a local storage limit that is not critical, or on to the thresholds' },
      always: [{ guard: 'hasChoice', target: 'evicting' }, { target: 'deciding' }],
    },
    deciding: {
      meta: { description: 'is a threshold past its grace period, with fresh stats? (EvictionThresholdMet)' },
      always: [
        { guard: and(['isStarved', 'needsNodeReclaim']), target: 'reclaiming', actions: 'announceThresholdMet' },
        { guard: 'isStarved', target: 'listingPods', actions: 'announceThresholdMet' },
        { target: 'waiting' },
      ],
    },
    reclaiming: {
      meta: { description: 'disk pressure: container and image GC before evicting any pod' },
      invoke: {
        id: 'reclaimNodeLevel',
        src: 'reclaimNodeLevel',
        input: ({ context }) => ({ signal: context.starvation!.signal, resource: context.starvation!.resource }),
        onDone: [{ guard: 'isReclaimedByNode', target: 'waiting' }, { target: 'listingPods' }],
        onError: { target: 'listingPods' },
      },
    },
    listingPods: {
      meta: { description: 'the active pods and their usage, to rank' },
      invoke: {
        id: 'listCandidates',
        src: 'listCandidates',
        input: () => ({}),
        onDone: { target: 'ranking', actions: 'chooseVictim' },
        onError: { target: 'waiting' },
      },
    },
    ranking: {
      meta: { description: 'the first pod of the ranking that is not critical, or none' },
      always: [{ guard: 'hasChoice', target: 'evicting' }, { target: 'waiting' }],
    },
    evicting: {
      meta: { description: 'one pod killed by its worker: status Failed, reason Evicted' },
      entry: 'requestEviction',
      on: {
        'pod.eviction.finished': [
          { guard: and(['isOurEviction', 'isEvicted']), target: 'observing', actions: 'countEviction' },
          { guard: 'isOurEviction', target: 'waiting' },
        ],
      },
      after: { podCleanupTimeout: 'waiting' },
    },
  },
});
