/**
 * Node pressure conditions from met thresholds, held for the transition period (Go helpers.go:
 * nodeConditions, nodeConditionsLastObservedAt, nodeConditionsObservedSince): a condition is
 * reported while it was last observed less than evictionPressureTransitionPeriod ago, so a
 * threshold that flaps does not flap the node's condition.
 */
import { PRESSURE_CONDITIONS, SIGNAL_CONDITION, type PressureCondition } from './signals.js';
import type { Threshold } from './thresholds.js';

export type ConditionsObservedAt = Partial<Record<PressureCondition, number>>;

/** The conditions these thresholds drive, once each, in the node status's order. */
export function conditionsOf(thresholds: readonly Threshold[]): PressureCondition[] {
  const seen = new Set(thresholds.map((t) => SIGNAL_CONDITION[t.signal]));
  return PRESSURE_CONDITIONS.filter((c) => seen.has(c));
}

/** `last`, with the conditions observed now stamped `nowMs`. */
export function conditionsLastObservedAt(observed: readonly PressureCondition[], last: ConditionsObservedAt, nowMs: number): ConditionsObservedAt {
  const out: ConditionsObservedAt = { ...last };
  for (const c of observed) out[c] = nowMs;
  return out;
}

/** The conditions observed within `periodMs` of `nowMs`: the ones the node reports True. */
export function conditionsObservedSince(observedAt: ConditionsObservedAt, periodMs: number, nowMs: number): PressureCondition[] {
  return PRESSURE_CONDITIONS.filter((c) => {
    const at = observedAt[c];
    return at !== undefined && nowMs - at < periodMs;
  });
}
