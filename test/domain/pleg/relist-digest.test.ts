import { describe, expect, it } from 'vitest';
import { relistDigest, type RelistPod } from '../../../src/domain/pleg/relist.js';

const pod = (uid: string, state: RelistPod['containers'][number]['state'] = 'running'): RelistPod => ({
  uid, sandboxes: [{ id: `s-${uid}`, state: 'ready' }], containers: [{ id: `c-${uid}`, name: 'main', state }],
});

describe('relistDigest', () => {
  it('is the same for the same pods in any order, and 16 hex digits', () => {
    const d = relistDigest([pod('a'), pod('b')]);
    expect(d).toMatch(/^[0-9a-f]{16}$/);
    expect(relistDigest([pod('b'), pod('a')])).toBe(d);
  });

  it('changes when a container changes state, a pod goes, or an id differs', () => {
    const d = relistDigest([pod('a'), pod('b')]);
    expect(relistDigest([pod('a'), pod('b', 'exited')])).not.toBe(d);
    expect(relistDigest([pod('a')])).not.toBe(d);
    expect(relistDigest([pod('a'), { ...pod('b'), containers: [{ id: 'c-other', name: 'main', state: 'running' }] }])).not.toBe(d);
  });
});

describe('relistDigest boundaries', () => {
  it('tells apart pods whose fields would run together without separators', () => {
    const one: RelistPod = { uid: 'ab', sandboxes: [], containers: [{ id: 'c', name: 'x', state: 'running' }] };
    const other: RelistPod = { uid: 'a', sandboxes: [], containers: [{ id: 'bc', name: 'x', state: 'running' }] };
    expect(relistDigest([one])).not.toBe(relistDigest([other]));
    // A sandbox is not a container with the same id.
    expect(relistDigest([{ uid: 'u', sandboxes: [{ id: 's', state: 'ready' }], containers: [] }]))
      .not.toBe(relistDigest([{ uid: 'u', sandboxes: [], containers: [{ id: 's', name: 'ready', state: 'running' }] }]));
  });
});
