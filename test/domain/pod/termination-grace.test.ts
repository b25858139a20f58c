import { describe, expect, it } from 'vitest';
import { effectiveGracePeriodSeconds } from '../../../src/domain/pod/termination-grace.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (tgps?: number, deletion?: number): Pod => ({
  metadata: { name: 'p', uid: 'u', ...(deletion !== undefined ? { deletionGracePeriodSeconds: deletion } : {}) },
  spec: { containers: [], ...(tgps !== undefined ? { terminationGracePeriodSeconds: tgps } : {}) },
});

describe('effectiveGracePeriodSeconds', () => {
  it.each([
    { name: 'the API default when nothing is set', p: pod(), current: undefined, requested: undefined, want: 30 },
    { name: 'the spec value', p: pod(45), current: undefined, requested: undefined, want: 45 },
    { name: 'the deletion grace period', p: pod(45, 10), current: undefined, requested: undefined, want: 10 },
    { name: 'a shorter request', p: pod(45), current: undefined, requested: 5, want: 5 },
    { name: 'a request never lengthens it', p: pod(45), current: 5, requested: 20, want: 5 },
    { name: 'a shorter second request shortens it', p: pod(45), current: 20, requested: 3, want: 3 },
    { name: 'at least 1 s', p: pod(0, 0), current: undefined, requested: undefined, want: 1 },
  ])('$name', ({ p, current, requested, want }) => {
    expect(effectiveGracePeriodSeconds(p, current, requested)).toBe(want);
  });
});
