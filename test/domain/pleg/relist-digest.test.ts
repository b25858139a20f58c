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
