import { describe, expect, it } from 'vitest';
import { deadContainersKept, deadContainersToRemove, type DeadContainerCandidate } from '../../../src/domain/runtime/dead-containers.js';

const c = (id: string, name: string, state: DeadContainerCandidate['state'], createdAtNs: string): DeadContainerCandidate => ({ id, name, state, createdAtNs });

// Created out of order on purpose: the choice goes by creation time, not by list order.
const pod = [
  c('app-2', 'app', 'exited', '2000000000000000002'),
  c('app-0', 'app', 'exited', '2000000000000000000'),
  c('app-3', 'app', 'running', '2000000000000000003'),
  c('app-1', 'app', 'exited', '2000000000000000001'),
  c('side-0', 'side', 'exited', '1000000000000000000'),
  c('side-1', 'side', 'exited', '1000000000000000001'),
];

describe('deadContainersToRemove', () => {
  it('keeps the newest exited instances of the dead container\'s name and leaves other names alone', () => {
    expect(deadContainersToRemove(pod, 'app-2', 1)).toEqual(['app-1', 'app-0']);
    expect(deadContainersToRemove(pod, 'side-0', 1)).toEqual(['side-0']);
  });

  it('removes nothing while there are no more exited instances than it keeps', () => {
    expect(deadContainersToRemove(pod, 'app-1', 3)).toEqual([]);
    expect(deadContainersToRemove(pod, 'side-1', 2)).toEqual([]);
  });

  it('removes nothing for a container the pod no longer has', () => {
    expect(deadContainersToRemove(pod, 'gone', 0)).toEqual([]);
  });

  it('takes every exited container of the pod, never a running one, when no container is named', () => {
    expect(deadContainersToRemove(pod, null, 0).sort()).toEqual(['app-0', 'app-1', 'app-2', 'side-0', 'side-1']);
  });

  it('orders by the full nanosecond timestamp (beyond a double\'s precision)', () => {
    const close = [c('a', 'x', 'exited', '1700000000000000001'), c('b', 'x', 'exited', '1700000000000000002')];
    expect(deadContainersToRemove(close, 'a', 1)).toEqual(['a']);
  });
});

describe('deadContainersKept', () => {
  it('is --maximum-dead-containers-per-container, but at least one (Go\'s minDeadContainerInPod)', () => {
    expect(deadContainersKept(3)).toBe(3);
    expect(deadContainersKept(1)).toBe(1);
    expect(deadContainersKept(0)).toBe(1);
    expect(deadContainersKept(-1)).toBe(1);
  });
});
