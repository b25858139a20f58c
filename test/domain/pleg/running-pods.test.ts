import { describe, expect, it } from 'vitest';
import type { RelistPod } from '../../../src/domain/pleg/relist.js';
import { runningPodUids, sameUids } from '../../../src/domain/pleg/running-pods.js';

const pod = (uid: string, sandbox: 'ready' | 'notReady' | null, container: 'running' | 'exited' | 'created' | 'unknown' | null): RelistPod => ({
  uid,
  sandboxes: sandbox ? [{ id: `sb-${uid}`, state: sandbox }] : [],
  containers: container ? [{ id: `c-${uid}`, name: 'main', state: container }] : [],
});

describe('runningPodUids', () => {
  it('counts a pod with a running container or a ready sandbox, sorted, and leaves out dead ones', () => {
    expect(runningPodUids([
      pod('d', 'notReady', 'running'),
      pod('c', 'ready', 'exited'),
      pod('b', 'notReady', 'exited'),
      pod('a', null, 'created'),
      pod('e', 'notReady', 'unknown'),
    ])).toEqual(['c', 'd']);
  });
});

describe('sameUids', () => {
  it.each([
    { a: [], b: [], same: true },
    { a: ['x', 'y'], b: ['x', 'y'], same: true },
    { a: ['x'], b: ['x', 'y'], same: false },
    { a: ['x', 'y'], b: ['x', 'z'], same: false },
  ])('compares $a with $b', ({ a, b, same }) => {
    expect(sameUids(a, b)).toBe(same);
  });
});
