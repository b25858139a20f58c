import { describe, expect, it } from 'vitest';
import { ObjectStore } from './store.js';
import type { ApiError } from './status.js';

const pod = (name: string) => ({ metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x:1' }] } });

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return (e as ApiError).code;
  }
  return undefined;
}

describe('ObjectStore', () => {
  it('bumps one global resourceVersion on every write and records the changes', () => {
    const s = new ObjectStore();
    const a = s.create('pods', pod('a'));
    const n = s.create('nodes', { metadata: { name: 'n1' } });
    expect(Number(n.metadata?.resourceVersion)).toBe(Number(a.metadata?.resourceVersion) + 1);
    expect(s.changesSince(0)?.map((c) => c.type)).toEqual(['ADDED', 'ADDED']);
  });

  it('does not write an update that changes nothing', () => {
    const s = new ObjectStore();
    const a = s.create('pods', pod('a'));
    const same = s.update('pods', a, 'main');
    expect(same.metadata?.resourceVersion).toBe(a.metadata?.resourceVersion);
    expect(s.resourceVersion()).toBe(a.metadata?.resourceVersion);
  });

  it('bumps generation on spec changes only, and keeps status on the main resource', () => {
    const s = new ObjectStore();
    const a = s.create('pods', pod('a'));
    const status = s.update('pods', { ...a, status: { phase: 'Running' } }, 'status');
    expect(status.metadata?.generation).toBe(1);
    const spec = s.update('pods', { ...status, spec: { ...(status.spec as object), activeDeadlineSeconds: 5 }, status: {} }, 'main');
    expect(spec.metadata?.generation).toBe(2);
    expect(spec.status).toEqual({ phase: 'Running' });
  });

  it('answers 409 to a stale resourceVersion and 404 to a missing object', () => {
    const s = new ObjectStore();
    const a = s.create('pods', pod('a'));
    s.update('pods', { ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
    expect(codeOf(() => s.update('pods', a))).toBe(409);
    expect(codeOf(() => s.update('pods', pod('nope')))).toBe(404);
    expect(codeOf(() => s.create('pods', pod('a')))).toBe(409);
  });

  it('shortens a graceful deletion but never lengthens it', () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const s = new ObjectStore({ now: () => now });
    s.create('pods', pod('a'));
    const first = s.delete('pods', 'default', 'a', { gracePeriodSeconds: 30 });
    expect(first.removed).toBe(false);
    expect(first.object.metadata?.deletionTimestamp).toBe('2026-01-01T00:00:30Z');
    now = new Date('2026-01-01T00:00:05Z');
    const longer = s.delete('pods', 'default', 'a', { gracePeriodSeconds: 60 });
    expect(longer.object.metadata?.deletionGracePeriodSeconds).toBe(30);
    const shorter = s.delete('pods', 'default', 'a', { gracePeriodSeconds: 10 });
    expect(shorter.object.metadata).toMatchObject({ deletionGracePeriodSeconds: 10, deletionTimestamp: '2026-01-01T00:00:15Z' });
    expect(s.delete('pods', 'default', 'a', { gracePeriodSeconds: 0 }).removed).toBe(true);
    expect(s.get('pods', 'default', 'a')).toBeUndefined();
  });

  it('forgets history past its limit, so old resourceVersions cannot be watched from', () => {
    const s = new ObjectStore({ historyLimit: 2 });
    for (const name of ['a', 'b', 'c']) s.create('pods', pod(name));
    expect(s.changesSince(0)).toBeUndefined();
    expect(s.changesSince(1)?.map((c) => c.object.metadata?.name)).toEqual(['b', 'c']);
    s.compact();
    expect(s.changesSince(2)).toBeUndefined();
    expect(s.changesSince(3)).toEqual([]);
  });
});

describe('ObjectStore preconditions', () => {
  it('refuses a status patch whose metadata.uid is not the stored pod\'s: 422, the uid immutable, as the real server', () => {
    const s = new ObjectStore();
    const a = s.create('pods', pod('a'));
    expect(codeOf(() => s.patch('pods', 'default', 'a', 'application/strategic-merge-patch+json',
      { metadata: { uid: 'someone-else' }, status: { phase: 'Running' } }, 'status'))).toBe(422);
    expect(() => s.patch('pods', 'default', 'a', 'application/strategic-merge-patch+json', { metadata: { uid: 'someone-else' } }, 'status'))
      .toThrow('Pod "a" is invalid: metadata.uid: Invalid value: "someone-else": field is immutable');
    const ok = s.patch('pods', 'default', 'a', 'application/strategic-merge-patch+json',
      { metadata: { uid: a.metadata?.uid }, status: { phase: 'Running' } }, 'status');
    expect(ok.status).toMatchObject({ phase: 'Running' });
  });
});
