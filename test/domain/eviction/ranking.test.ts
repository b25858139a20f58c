import { describe, expect, it } from 'vitest';
import { rankForEviction } from '../../../src/domain/eviction/ranking.js';
import { candidate, Mi, usingMemory } from './fixtures.js';

const names = (list: { name: string }[]) => list.map((c) => c.name);

describe('rankForEviction', () => {
  it('ranks memory by exceeding requests, then lower priority, then usage above request', () => {
    const withinRequest = usingMemory('within', 50 * Mi, { requests: { memory: 100 * Mi, 'ephemeral-storage': 0 } });
    const bestEffortSmall = usingMemory('be-small', 10 * Mi);
    const bestEffortBig = usingMemory('be-big', 80 * Mi);
    const highPriority = usingMemory('high', 500 * Mi, { priority: 1000 });
    expect(names(rankForEviction('memory', [withinRequest, highPriority, bestEffortSmall, bestEffortBig]))).toEqual(['be-big', 'be-small', 'high', 'within']);
  });

  it('ranks a pod without stats before pods with stats', () => {
    const noStats = candidate('no-stats', { usage: undefined, priority: 100 });
    expect(names(rankForEviction('memory', [usingMemory('a', 1), noStats]))).toEqual(['no-stats', 'a']);
  });

  it('ranks disk by usage above the ephemeral-storage request', () => {
    const disk = (name: string, bytes: number, request = 0) =>
      candidate(name, { requests: { memory: 0, 'ephemeral-storage': request }, usage: { memoryBytes: 0, diskBytes: bytes, inodes: 0, containers: [] } });
    expect(names(rankForEviction('ephemeral-storage', [disk('small', 10), disk('big', 100), disk('requested', 200, 300)]))).toEqual(['big', 'small', 'requested']);
  });

  it('ranks pids by priority alone, keeping the given order among equals', () => {
    expect(names(rankForEviction('pids', [candidate('b', { priority: 5 }), candidate('a'), candidate('c')]))).toEqual(['a', 'c', 'b']);
  });
});
