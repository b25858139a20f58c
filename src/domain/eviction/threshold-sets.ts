/**
 * Which thresholds are met, and for how long (Go helpers.go: thresholdsMet, mergeThresholds,
 * thresholdsFirstObservedAt, thresholdsMetGracePeriod, thresholdsUpdatedStats, byEvictionPriority,
 * getReclaimableThreshold). Times are milliseconds on the actor system's clock.
 */
import type { Observations } from './observations.js';
import { SIGNAL_RESOURCE, type StarvedResource } from './signals.js';
import { thresholdKey, thresholdQuantity, type Threshold } from './thresholds.js';

/** When each threshold (by thresholdKey) was first seen met, in this run of being met. */
export type ObservedAt = Record<string, number>;

/**
 * The thresholds whose signal's available amount is below the threshold's quantity; with
 * `enforceMinReclaim`, below quantity + minimum reclaim (a threshold stays met until that much
 * more is free).
 */
export function thresholdsMet(thresholds: readonly Threshold[], observations: Observations, enforceMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const observed = observations[t.signal];
    if (!observed) return false;
    let quantity = thresholdQuantity(t.value, observed.capacity);
    if (enforceMinReclaim && t.minReclaim) quantity += thresholdQuantity(t.minReclaim, observed.capacity);
    return quantity > observed.available;
  });
}

/** `a` and those of `b` not already in it. */
export function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  const keys = new Set(a.map(thresholdKey));
  return [...a, ...b.filter((t) => !keys.has(thresholdKey(t)))];
}

/** Keeps the first-seen time of thresholds still met, stamps new ones with `nowMs`, forgets the rest. */
export function thresholdsFirstObservedAt(thresholds: readonly Threshold[], last: ObservedAt, nowMs: number): ObservedAt {
  return Object.fromEntries(thresholds.map((t) => [thresholdKey(t), last[thresholdKey(t)] ?? nowMs]));
}

/** The thresholds met for at least their grace period. */
export function thresholdsMetGracePeriod(thresholds: readonly Threshold[], observedAt: ObservedAt, nowMs: number): Threshold[] {
  return thresholds.filter((t) => {
    const since = observedAt[thresholdKey(t)];
    return since !== undefined && nowMs - since >= t.gracePeriodMs;
  });
}

/** Drops thresholds whose signal has no reading newer than last cycle's: stale stats must not evict twice. */
export function thresholdsUpdatedStats(thresholds: readonly Threshold[], observations: Observations, last: Observations): Threshold[] {
  return thresholds.filter((t) => {
    const observed = observations[t.signal];
    if (!observed) return false;
    const previous = last[t.signal];
    return previous === undefined || observed.time === '' || Date.parse(observed.time) > Date.parse(previous.time);
  });
}

/** Memory first, the others in their given order (Go's byEvictionPriority, stable here). */
export function byEvictionPriority(thresholds: readonly Threshold[]): Threshold[] {
  const memory = thresholds.filter((t) => SIGNAL_RESOURCE[t.signal] === 'memory');
  return [...memory, ...thresholds.filter((t) => SIGNAL_RESOURCE[t.signal] !== 'memory')];
}

/** The threshold to act on first and the resource it starves (getReclaimableThreshold), or null. */
export function reclaimableThreshold(thresholds: readonly Threshold[]): { threshold: Threshold; resource: StarvedResource } | null {
  const first = byEvictionPriority(thresholds)[0];
  return first ? { threshold: first, resource: SIGNAL_RESOURCE[first.signal] } : null;
}
