import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { applyPodChange, viewApiPods } from '../../../src/domain/status-manager/api-pod-snapshot.js';

const pod = (name: string, uid: string, extra: Partial<Pod['metadata']> = {}): Pod => ({ metadata: { name, uid, ...extra }, spec: { containers: [{ name: 'c', image: 'img:latest' }] } });

describe('api pod view', () => {
  it('adds, replaces and deletes by uid without touching the old map', () => {
    const before = new Map([['a', pod('a', 'a')]]);
    const added = applyPodChange(before, { type: 'ADDED', pod: pod('b', 'b') });
    const modified = applyPodChange(added, { type: 'MODIFIED', pod: pod('a2', 'a') });
    const deleted = applyPodChange(modified, { type: 'DELETED', pod: pod('b', 'b') });
    expect([...before.keys()]).toEqual(['a']);
    expect([...added.keys()]).toEqual(['a', 'b']);
    expect(modified.get('a')!.metadata.name).toBe('a2');
    expect([...deleted.keys()]).toEqual(['a']);
  });

  it('sorts pods by namespace and name, defaults missing fields and the namespace, and splits mirrors off', () => {
    const view = viewApiPods([
      pod('z', '1', { namespace: 'b' }),
      pod('m', '2', { annotations: { 'kubernetes.io/config.mirror': 'h' } }),
      pod('y', '3'),
    ]);
    expect(view.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['b/z', 'default/y']);
    expect(view.pods[1]!.spec.containers[0]!.imagePullPolicy).toBe('Always');
    expect(view.mirrorPods.map((p) => p.metadata.uid)).toEqual(['2']);
  });

  it('refuses pods to run whose UID is not one safe path segment, naming them and why (mirror pods name nothing on the node)', () => {
    const view = viewApiPods([pod('ok', 'u-1'), pod('dots', '..'), pod('slash', 'a/b', { namespace: 'n' }), pod('empty', ''), pod('m', '', { annotations: { 'kubernetes.io/config.mirror': 'h' } })]);
    expect(view.pods.map((p) => p.metadata.name)).toEqual(['ok']);
    expect(view.mirrorPods.map((p) => p.metadata.name)).toEqual(['m']);
    expect(view.refused.map((r) => r.origin)).toEqual(['default/dots', 'default/empty', 'n/slash']);
    expect(view.refused[0]!.reason).toMatch(/^metadata\.uid: Invalid value: "\.\.": must be a single path segment/);
  });
});
