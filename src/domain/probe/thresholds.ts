/**
 * Consecutive-result counting, exactly as Go's prober worker does it (worker.doProbe): a verdict
 * changes only after `successThreshold` successes or `failureThreshold` failures in a row; attempts
 * that could not run (`unknown` outcomes) are thrown away and do not break a run.
 */
import { initialProbeResult } from './defaults.js';
import type { ProbeResult, ProbeType } from './types.js';

export interface ProbeCounter {
  /** The verdict last reported (Go: what the results manager holds for this container). */
  result: ProbeResult;
  /** The last attempt's result and how many times in a row it came (Go: lastResult, resultRun). */
  lastResult: 'success' | 'failure' | null;
  run: number;
}

export interface Thresholds {
  successThreshold: number;
  failureThreshold: number;
}

export function initialProbeCounter(type: ProbeType): ProbeCounter {
  return { result: initialProbeResult(type), lastResult: null, run: 0 };
}

export interface CountedProbe {
  counter: ProbeCounter;
  /** The verdict changed with this attempt: the parent must be told. */
  changed: boolean;
  /** The threshold was reached with this attempt (Go sets the result again, even if unchanged). */
  reachedThreshold: boolean;
}

/** Counts one attempt. An `unknown` attempt leaves the counter as it was (Go: prober error, result discarded). */
export function countProbeResult(
  counter: ProbeCounter,
  attempt: 'success' | 'failure' | 'unknown',
  thresholds: Thresholds,
): CountedProbe {
  if (attempt === 'unknown') return { counter, changed: false, reachedThreshold: false };
  const run = counter.lastResult === attempt ? counter.run + 1 : 1;
  const threshold = attempt === 'success' ? thresholds.successThreshold : thresholds.failureThreshold;
  if (run < threshold) {
    return { counter: { ...counter, lastResult: attempt, run }, changed: false, reachedThreshold: false };
  }
  return {
    counter: { result: attempt, lastResult: attempt, run },
    changed: counter.result !== attempt,
    reachedThreshold: true,
  };
}

/**
 * After a liveness or startup failure the container will be restarted, and Go puts the worker on hold
 * with its run reset to 0 (the last result is kept).
 */
export function holdAfterFailure(counter: ProbeCounter): ProbeCounter {
  return { ...counter, run: 0 };
}
