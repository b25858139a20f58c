/**
 * The eviction manager (Go: pkg/kubelet/eviction, managerImpl.Start and synchronize): every
 * monitoring period (10 s) it reads the node's signals, reports the pressure conditions, and when a
 * threshold is past its grace period reclaims: node-level first for disk (image and container GC),
 * then one pod per cycle.
 *
 * Contract:
 * - `observing` runs at once on start (Go's loop synchronizes before its first sleep), then after
 *   each `waiting` period. The `observe` effect answers with the signal observations, the active
 *   pods as eviction candidates, whether the image filesystem is its own device, and the time of
 *   the reading on the actor system's clock; a failed read is logged by the effect and the cycle
 *   ends (Go: "failed to get summary stats").
 * - The pure steps are domain/eviction/synchronize.ts. When the reported conditions change, the
 *   machine tells `nodeStatus` (the Node's MemoryPressure/DiskPressure/PIDPressure) and its parent
 *   (the syncLoop's admission) with `node.pressure.changed`.
 * - With a threshold to act on: `announcing` records the node's EvictionThresholdMet event;
 *   `reclaiming` (disk signals) runs image and container GC and answers with a fresh reading —
 *   resolved when no threshold is met counting minimum reclaim; otherwise `choosing` ranks the pods
 *   and `evicting` kills the first one that is not critical (grace 1 s for a hard threshold, else
 *   evictionMaxPodGracePeriod capped by the pod's own) with status Failed/Evicted and Go's message.
 *   The `evictPod` effect answers once the pod is killed; the next cycle then starts at once, as Go
 *   synchronizes again after waitForPodsCleanup instead of sleeping.
 * Pure: time arrives on the effects' answers (`observedAtMs`); periods run on the injected clock.
 */
import { assign, enqueueActions, fromPromise, setup, type AnyActorRef, type AnyEventObject } from 'xstate';
import { doneOutput } from './done-output.js';
import type { EvictionCandidate } from '../domain/eviction/candidates.js';
import type { Observations } from '../domain/eviction/observations.js';
import type { PressureCondition, Signal, StarvedResource } from '../domain/eviction/signals.js';
import {
  chooseEviction,
  EVICTION_MONITORING_PERIOD_MS,
  initialEvictionMemory,
  isReclaimedByNode,
  nodeReclaimNeeded,
  observeCycle,
  type EvictionChoice,
  type EvictionMemory,
  type EvictionSettings,
  type Starvation,
} from '../domain/eviction/synchronize.js';
import type { Threshold } from '../domain/eviction/thresholds.js';

export interface EvictionManagerInput {
  thresholds: Threshold[];
  pressureTransitionPeriodMs: number;
  maxPodGracePeriodSeconds: number;
  monitoringPeriodMs?: number;
}

export interface EvictionReading {
  observations: Observations;
  candidates: EvictionCandidate[];
  dedicatedImageFs: boolean;
  observedAtMs: number;
}

/** A failed read answers null (the effect logs why): the cycle ends without a decision. */
export type ObserveOutput = EvictionReading | null;
/** The fresh observations after image and container GC, or null when they could not be read. */
export type ReclaimOutput = { observations: Observations | null };
export type EvictPodOutput = { evicted: boolean };

export interface AnnounceInput { signal: Signal; resource: StarvedResource }
export type ReclaimInput = AnnounceInput;
export type EvictPodInput = EvictionChoice;

export interface EvictionManagerContext {
  settings: EvictionSettings;
  monitoringPeriodMs: number;
  memory: EvictionMemory;
  /** The pressure conditions the node reports True. */
  conditions: PressureCondition[];
  reading: EvictionReading | null;
  starvation: Starvation | null;
  choice: EvictionChoice | null;
  evictions: number;
}

/** Sent to nodeStatus and to the parent when the reported pressure conditions change. */
export interface PressureChangedEvent { type: 'node.pressure.changed'; conditions: PressureCondition[] }

/** It takes no events: it acts on its own period and its effects' answers. */
export type EvictionManagerEvent = never;

export const EVICTION_MANAGER_EFFECTS = ['observe', 'announceThresholdMet', 'reclaimNodeLevel', 'evictPod'] as const;

const sameConditions = (a: readonly PressureCondition[], b: readonly PressureCondition[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export const evictionManagerMachine = setup({
  types: { context: {} as EvictionManagerContext, input: {} as EvictionManagerInput },
  actors: {
    observe: fromPromise<ObserveOutput, Record<string, never>>(async () => {
      throw new Error('actor observe was not provided');
    }),
    announceThresholdMet: fromPromise<void, AnnounceInput>(async () => {
      throw new Error('actor announceThresholdMet was not provided');
    }),
    reclaimNodeLevel: fromPromise<ReclaimOutput, ReclaimInput>(async () => {
      throw new Error('actor reclaimNodeLevel was not provided');
    }),
    evictPod: fromPromise<EvictPodOutput, EvictPodInput>(async () => {
      throw new Error('actor evictPod was not provided');
    }),
  },
  delays: {
    monitoringPeriod: ({ context }) => context.monitoringPeriodMs,
  },
  guards: {
    isStarved: ({ context }) => context.starvation !== null,
    needsNodeReclaim: ({ context }) =>
      context.starvation !== null && nodeReclaimNeeded(context.starvation.signal, context.reading?.dedicatedImageFs ?? false),
    isReclaimedByNode: ({ context, event }) => {
      const fresh = doneOutput<ReclaimOutput>(event).observations;
      return fresh !== null && isReclaimedByNode(context.settings, fresh);
    },
    hasChoice: ({ context }) => context.choice !== null,
    isEvicted: ({ event }) => doneOutput<EvictPodOutput>(event).evicted,
  },
  actions: {
    recordCycle: enqueueActions(({ context, event, enqueue, system }) => {
      const reading = doneOutput<ObserveOutput>(event as AnyEventObject);
      if (reading === null) {
        enqueue.assign({ reading: null, starvation: null });
        return;
      }
      const outcome = observeCycle(context.settings, context.memory, reading.observations, reading.observedAtMs);
      enqueue.assign({ memory: outcome.memory, conditions: outcome.conditions, reading, starvation: outcome.starvation, choice: null });
      if (sameConditions(outcome.conditions, context.conditions)) return;
      const changed: PressureChangedEvent = { type: 'node.pressure.changed', conditions: outcome.conditions };
      const nodeStatus = system.get('nodeStatus') as AnyActorRef | undefined;
      if (nodeStatus) enqueue.sendTo(nodeStatus, changed);
      enqueue.sendParent(changed);
    }),
    chooseVictim: assign({
      choice: ({ context }) =>
        context.starvation && context.reading
          ? chooseEviction(context.settings, context.starvation, context.reading.candidates, context.reading.observations)
          : null,
    }),
    countEviction: assign({ evictions: ({ context }) => context.evictions + 1 }),
  },
}).createMachine({
  id: 'evictionManager',
  context: ({ input }) => ({
    settings: {
      thresholds: input.thresholds,
      pressureTransitionPeriodMs: input.pressureTransitionPeriodMs,
      maxPodGracePeriodSeconds: input.maxPodGracePeriodSeconds,
    },
    monitoringPeriodMs: input.monitoringPeriodMs ?? EVICTION_MONITORING_PERIOD_MS,
    memory: initialEvictionMemory(),
    conditions: [],
    reading: null,
    starvation: null,
    choice: null,
    evictions: 0,
  }),
  initial: 'observing',
  states: {
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
        onDone: { target: 'deciding', actions: 'recordCycle' },
        onError: { target: 'waiting' },
      },
    },
    deciding: {
      meta: { description: 'is a threshold past its grace period, with fresh stats?' },
      always: [{ guard: 'isStarved', target: 'announcing' }, { target: 'waiting' }],
    },
    announcing: {
      meta: { description: 'a threshold is past its grace period: the node event EvictionThresholdMet' },
      invoke: {
        id: 'announceThresholdMet',
        src: 'announceThresholdMet',
        input: ({ context }) => ({ signal: context.starvation!.signal, resource: context.starvation!.resource }),
        onDone: [{ guard: 'needsNodeReclaim', target: 'reclaiming' }, { target: 'choosing' }],
        onError: [{ guard: 'needsNodeReclaim', target: 'reclaiming' }, { target: 'choosing' }],
      },
    },
    reclaiming: {
      meta: { description: 'disk pressure: container and image GC before evicting any pod' },
      invoke: {
        id: 'reclaimNodeLevel',
        src: 'reclaimNodeLevel',
        input: ({ context }) => ({ signal: context.starvation!.signal, resource: context.starvation!.resource }),
        onDone: [{ guard: 'isReclaimedByNode', target: 'waiting' }, { target: 'choosing' }],
        onError: { target: 'choosing' },
      },
    },
    choosing: {
      meta: { description: 'ranking the active pods for the starved resource' },
      entry: 'chooseVictim',
      always: [{ guard: 'hasChoice', target: 'evicting' }, { target: 'waiting' }],
    },
    evicting: {
      meta: { description: 'killing one pod: status Failed, reason Evicted' },
      invoke: {
        id: 'evictPod',
        src: 'evictPod',
        input: ({ context }) => context.choice!,
        onDone: [{ guard: 'isEvicted', target: 'observing', actions: 'countEviction' }, { target: 'waiting' }],
        onError: { target: 'waiting' },
      },
    },
  },
});
