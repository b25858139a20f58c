import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { buildMirrorPod, isMirrorPod, isMirrorPodOf, isStaticPod, planMirrorPods } from '../../../src/domain/status-manager/mirror-pods.js';

const staticPod = (name: string, hash: string, extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'kube-system', uid: hash, resourceVersion: '3', annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': hash }, ...extra },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running' },
});
const mirror = (name: string, hash: string, uid: string, extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'kube-system', uid, annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.mirror': hash }, ...extra },
  spec: { containers: [] },
});

describe('mirror pods', () => {
  it('tells static, mirror and API pods apart', () => {
    expect(isStaticPod(staticPod('a', 'h'))).toBe(true);
    expect(isStaticPod(mirror('a', 'h', 'm'))).toBe(false);
    expect(isMirrorPod(mirror('a', 'h', 'm'))).toBe(true);
    expect(isStaticPod({ metadata: { name: 'x', uid: 'x', annotations: { 'kubernetes.io/config.source': 'api' } }, spec: { containers: [] } })).toBe(false);
  });

  it('builds the mirror: no uid, status or resourceVersion, the hash annotation, owned by the Node', () => {
    const built = buildMirrorPod(staticPod('a', 'h1'), { name: 'node-a', uid: 'nu' });
    expect(built.metadata.uid).toBe('');
    expect(built.metadata.resourceVersion).toBeUndefined();
    expect(built.status).toBeUndefined();
    expect(built.metadata.annotations).toMatchObject({ 'kubernetes.io/config.mirror': 'h1', 'kubernetes.io/config.hash': 'h1' });
    expect(built.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'nu', controller: true }]);
    expect(built.spec.nodeName).toBe('node-a');
    expect(isMirrorPodOf(mirror('a', 'h1', 'm'), staticPod('a', 'h1'))).toBe(true);
    expect(isMirrorPodOf(mirror('a', 'h0', 'm'), staticPod('a', 'h1'))).toBe(false);
  });

  it('plans creates, replacements and orphan deletes, and nothing for busy names', () => {
    const plan = planMirrorPods(
      [staticPod('new', 'h'), staticPod('stale', 'h2'), staticPod('ok', 'h3'), staticPod('busy', 'h4'), staticPod('leaving', 'h5', { deletionTimestamp: 't' })],
      [mirror('stale', 'h1', 'm-stale'), mirror('ok', 'h3', 'm-ok'), mirror('orphan', 'h9', 'm-orphan'), mirror('leaving', 'h5', 'm-leaving')],
      new Set(['busy_kube-system']),
    );
    expect(plan).toEqual([
      { kind: 'create', fullName: 'new_kube-system', staticPodUid: 'h' },
      { kind: 'delete', fullName: 'stale_kube-system', namespace: 'kube-system', name: 'stale', mirrorUid: 'm-stale' },
      { kind: 'delete', fullName: 'orphan_kube-system', namespace: 'kube-system', name: 'orphan', mirrorUid: 'm-orphan' },
      { kind: 'delete', fullName: 'leaving_kube-system', namespace: 'kube-system', name: 'leaving', mirrorUid: 'm-leaving' },
    ]);
  });

  it('replaces a mirror someone deleted gracefully', () => {
    const plan = planMirrorPods([staticPod('a', 'h')], [mirror('a', 'h', 'm', { deletionTimestamp: 't' })], new Set());
    expect(plan).toEqual([{ kind: 'delete', fullName: 'a_kube-system', namespace: 'kube-system', name: 'a', mirrorUid: 'm' }]);
  });
});
