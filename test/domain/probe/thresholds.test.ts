import { describe, expect, it } from 'vitest';
import { countProbeResult, holdAfterFailure, initialProbeCounter, type ProbeCounter } from '../../../src/domain/probe/thresholds.js';
import type { ProbeType } from '../../../src/domain/probe/types.js';

type Attempt = 'success' | 'failure' | 'unknown';

/** Feeds attempts one by one; returns the verdict after each and the indexes at which it changed. */
function run(type: ProbeType, attempts: Attempt[], successThreshold: number, failureThreshold: number) {
  let counter: ProbeCounter = initialProbeCounter(type);
  const verdicts: string[] = [];
  const changedAt: number[] = [];
  attempts.forEach((attempt, i) => {
    const counted = countProbeResult(counter, attempt, { successThreshold, failureThreshold });
    counter = counted.counter;
    verdicts.push(counter.result);
    if (counted.changed) changedAt.push(i);
  });
  return { verdicts, changedAt };
}

const S = 'success' as const;
const F = 'failure' as const;
const U = 'unknown' as const;

describe('countProbeResult', () => {
  it.each([
    // type, attempts, successThreshold, failureThreshold, verdict after each, indexes of changes
    ['liveness', [F, F, F], 1, 3, ['success', 'success', 'failure'], [2]],
    ['liveness', [F, F, S, F, F], 1, 3, ['success', 'success', 'success', 'success', 'success'], []],
    ['liveness', [F, U, F, F], 1, 3, ['success', 'success', 'success', 'failure'], [3]],
    ['liveness', [F], 1, 1, ['failure'], [0]],
    ['readiness', [S], 1, 3, ['success'], [0]],
    ['readiness', [S, S, S], 3, 3, ['failure', 'failure', 'success'], [2]],
    ['readiness', [S, S, F, S, S, S], 3, 3, ['failure', 'failure', 'failure', 'failure', 'failure', 'success'], [5]],
    ['readiness', [S, F, F, F, S], 1, 3, ['success', 'success', 'success', 'failure', 'success'], [0, 3, 4]],
    ['readiness', [U, U, U], 1, 3, ['failure', 'failure', 'failure'], []],
    ['readiness', [F, F, F, F], 1, 3, ['failure', 'failure', 'failure', 'failure'], []],
    ['startup', [F, S], 1, 3, ['unknown', 'success'], [1]],
    ['startup', [F, F, F], 1, 3, ['unknown', 'unknown', 'failure'], [2]],
  ] as [ProbeType, Attempt[], number, number, string[], number[]][])(
    '%s %j with thresholds %i/%i gives %j',
    (type, attempts, successThreshold, failureThreshold, verdicts, changedAt) => {
      expect(run(type, attempts, successThreshold, failureThreshold)).toEqual({ verdicts, changedAt });
    },
  );

  it('reports a reached threshold even when the verdict does not change', () => {
    const counter = initialProbeCounter('liveness');
    const counted = countProbeResult(counter, 'success', { successThreshold: 1, failureThreshold: 3 });
    expect(counted).toMatchObject({ changed: false, reachedThreshold: true });
  });

  it('leaves the counter untouched for an attempt that could not run', () => {
    const counter: ProbeCounter = { result: 'success', lastResult: 'failure', run: 2 };
    expect(countProbeResult(counter, 'unknown', { successThreshold: 1, failureThreshold: 3 }).counter).toBe(counter);
  });
});

describe('holdAfterFailure', () => {
  it('resets the run and keeps the verdict and last result', () => {
    expect(holdAfterFailure({ result: 'failure', lastResult: 'failure', run: 3 })).toEqual({
      result: 'failure',
      lastResult: 'failure',
      run: 0,
    });
  });
});
