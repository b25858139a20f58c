import { describe, expect, it } from 'vitest';
import { findOrphans, runtimeOnlyPod } from '../../../src/domain/pod/orphans.js';

describe('findOrphans', () => {
  it('keeps the running pods that no source knows and no worker handles, in order', () => {
    expect(findOrphans(['a', 'b', 'c', 'd'], new Set(['b']), new Set(['c']))).toEqual(['a', 'd']);
  });

  it('finds none when every running pod is known', () => {
    expect(findOrphans(['a'], new Set(['a']), new Set())).toEqual([]);
  });
});

describe('runtimeOnlyPod', () => {
  it('carries the uid and no name or containers (the runtime names it when it is killed)', () => {
    expect(runtimeOnlyPod('u1')).toEqual({ metadata: { uid: 'u1', name: '' }, spec: { containers: [] } });
  });
});
