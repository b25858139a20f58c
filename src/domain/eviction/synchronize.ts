/**
 * One monitoring cycle of the eviction manager, as pure steps (Go: managerImpl.synchronize), so the
 * machine only sequences them and the effects:
 * 1. `observeCycle`: thresholds met now, plus those met before whose minimum reclaim is not yet
 *    satisfied; when each was first met; the pressure conditions, held for the transition period;
 *    the thresholds past their grace period with fresh stats; and the one to act on (memory first).
 * 2. `nodeReclaimNeeded`: disk signals try image and container GC first (Go's
 *    buildSignalToNodeReclaimFuncs); `isReclaimedByNode` re-checks every threshold with its minimum
 *    reclaim on a fresh reading.
 * 3. `chooseEviction`: the first pod of the ranking that is not critical, its grace period and
 *    Go's message. At most one pod per cycle.
 */
import type { EvictionCandidate } from './candidates.js';
import { evictionMessage } from './messages.js';
import type { Observations } from './observations.js';
import { conditionsLastObservedAt, conditionsObservedSince, conditionsOf, type ConditionsObservedAt } from './pressure-conditions.js';
import { rankForEviction } from './ranking.js';
import type { PressureCondition, Signal, StarvedResource } from './signals.js';
import {
  mergeThresholds,
  reclaimableThreshold,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
  thresholdsUpdatedStats,
  type ObservedAt,
} from './threshold-sets.js';
import { isHardThreshold, type Threshold } from './thresholds.js';

/** Go's immediateEvictionGracePeriodSeconds: a hard threshold's pod gets one second. */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;

/** Go's monitoring period (evictionMonitoringPeriod in kubelet.go). */
export const EVICTION_MONITORING_PERIOD_MS = 10_000;

/** Go's podCleanupTimeout: how long the manager waits for an evicted pod before its next cycle. */
export const POD_CLEANUP_TIMEOUT_MS = 30_000;

export interface EvictionSettings {
  thresholds: Threshold[];
  pressureTransitionPeriodMs: number;
  /** evictionMaxPodGracePeriod, seconds: the cap for soft evictions. */
  maxPodGracePeriodSeconds: number;
}

export interface EvictionMemory {
  /** Thresholds acted on last cycle: they stay met until their minimum reclaim is free. */
  thresholdsMet: Threshold[];
  thresholdsFirstObservedAt: ObservedAt;
  conditionsLastObservedAt: ConditionsObservedAt;
  lastObservations: Observations;
}

export const initialEvictionMemory = (): EvictionMemory => ({
  thresholdsMet: [],
  thresholdsFirstObservedAt: {},
  conditionsLastObservedAt: {},
  lastObservations: {},
});

export interface Starvation {
  signal: Signal;
  resource: StarvedResource;
  hard: boolean;
  /** The thresholds past their grace period, with fresh stats (the message names the first of its resource). */
  thresholds: Threshold[];
}

export interface CycleOutcome {
  memory: EvictionMemory;
  /** The conditions the node reports True now. */
  conditions: PressureCondition[];
  /** What to reclaim this cycle, or null when nothing is starved. */
  starvation: Starvation | null;
}

export function observeCycle(settings: EvictionSettings, memory: EvictionMemory, observations: Observations, nowMs: number): CycleOutcome {
  let met = thresholdsMet(settings.thresholds, observations, false);
  if (memory.thresholdsMet.length > 0) met = mergeThresholds(met, thresholdsMet(memory.thresholdsMet, observations, true));
  const firstObservedAt = thresholdsFirstObservedAt(met, memory.thresholdsFirstObservedAt, nowMs);
  const lastObservedAt = conditionsLastObservedAt(conditionsOf(met), memory.conditionsLastObservedAt, nowMs);
  const conditions = conditionsObservedSince(lastObservedAt, settings.pressureTransitionPeriodMs, nowMs);
  const pastGrace = thresholdsMetGracePeriod(met, firstObservedAt, nowMs);
  const fresh = thresholdsUpdatedStats(pastGrace, observations, memory.lastObservations);
  const next: EvictionMemory = {
    thresholdsMet: pastGrace,
    thresholdsFirstObservedAt: firstObservedAt,
    conditionsLastObservedAt: lastObservedAt,
    lastObservations: observations,
  };
  const target = reclaimableThreshold(fresh);
  const starvation = target ? { signal: target.threshold.signal, resource: target.resource, hard: isHardThreshold(target.threshold), thresholds: fresh } : null;
  return { memory: next, conditions, starvation };
}

/**
 * Whether image and container GC run before any pod is evicted for this signal. With a dedicated
 * image filesystem GC frees nothing on nodefs, so only the imagefs signals reclaim at node level.
 */
export function nodeReclaimNeeded(signal: Signal, dedicatedImageFs: boolean): boolean {
  if (signal.startsWith('imagefs.')) return true;
  return signal.startsWith('nodefs.') && !dedicatedImageFs;
}

/** After node-level reclaim: no threshold is met any more, minimum reclaim included. */
export function isReclaimedByNode(settings: EvictionSettings, observations: Observations): boolean {
  return thresholdsMet(settings.thresholds, observations, true).length === 0;
}

export interface EvictionChoice {
  uid: string;
  namespace: string;
  name: string;
  gracePeriodSeconds: number;
  message: string;
  annotations: Record<string, string>;
  /** Go adds the DisruptionTarget condition for a threshold's eviction, none for a local storage limit's. */
  disruptionTarget: boolean;
}

/** The soft eviction's grace: the cap, or the pod's own when shorter (AllowOverwriteTerminationGracePeriodSeconds off). */
function gracePeriodSeconds(settings: EvictionSettings, starvation: Starvation, pod: EvictionCandidate): number {
  if (starvation.hard) return IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS;
  const own = pod.terminationGracePeriodSeconds;
  return own === undefined ? settings.maxPodGracePeriodSeconds : Math.min(settings.maxPodGracePeriodSeconds, own);
}

/** The pod to evict this cycle, or null when every candidate is critical (or there is none). */
export function chooseEviction(settings: EvictionSettings, starvation: Starvation, candidates: readonly EvictionCandidate[], observations: Observations): EvictionChoice | null {
  const pod = rankForEviction(starvation.resource, candidates).find((c) => !c.critical);
  if (!pod) return null;
  const { message, annotations } = evictionMessage(starvation.resource, pod, starvation.thresholds, observations);
  return { uid: pod.uid, namespace: pod.namespace, name: pod.name, gracePeriodSeconds: gracePeriodSeconds(settings, starvation, pod), message, annotations, disruptionTarget: true };
}
