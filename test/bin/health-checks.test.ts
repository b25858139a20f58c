import { describe, expect, it } from 'vitest';
import { syncLoopProblem } from '../../src/bin/health-checks.js';

const MINUTE = 60_000;

describe('the syncloop health check', () => {
  it('passes before the syncLoop has started, as Go\'s does before the loop is first entered', () => {
    expect(syncLoopProblem('notStarted', undefined, undefined, 0)).toBeNull();
  });

  it('fails once the syncLoop has stopped', () => {
    expect(syncLoopProblem('stopped', 0, undefined, 0)).toBe('the syncLoop is not running');
  });

  it('fails when the loop was last active longer ago than max(2 × syncFrequency, 5 m)', () => {
    expect(syncLoopProblem('running', null, undefined, 10 * MINUTE)).toBeNull();
    expect(syncLoopProblem('running', 0, undefined, 5 * MINUTE)).toBeNull();
    expect(syncLoopProblem('running', 0, undefined, 5 * MINUTE + 1000)).toBe('syncLoop was last active 301s ago; threshold is 300s');
  });
});
