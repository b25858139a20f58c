/**
 * API snapshots (viewApiPods over the watched pods) through the pod config's own merge, as the
 * lead will wire them once 'api' is a pod source name: each watch change becomes the operation
 * Go's apiserver source produces.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { initialPodConfigState, mergeSnapshot, type PodConfigState } from '../../../src/domain/pod-config/merge.js';
import type { PodSourceName } from '../../../src/domain/pod-config/types.js';
import { applyPodChange, viewApiPods, type ApiPodChange } from '../../../src/domain/status-manager/api-pod-snapshot.js';

// 'api' is not a pod config source name yet (the lead adds it); the merge itself is source-agnostic.
const API = 'api' as unknown as PodSourceName;

const pod = (uid: string, rv: string, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name: `pod-${uid}`, namespace: 'ns', uid, resourceVersion: rv },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox:1.36' }] },
  ...extra,
});

function replay(changes: ApiPodChange[]) {
  let pods = new Map<string, Pod>();
  let state: PodConfigState = initialPodConfigState();
  const ops: string[][] = [];
  for (const change of changes) {
    pods = applyPodChange(pods, change);
    const result = mergeSnapshot(state, API, viewApiPods(pods.values()).pods, 0);
    state = result.state;
    ops.push(result.updates.map((u) => `${u.op} ${u.pods.map((p) => p.metadata.uid).join(',')}`));
  }
  return { ops, state };
}

describe('api snapshots through the pod config merge', () => {
  it('turns watch changes into ADD, RECONCILE, UPDATE, DELETE and REMOVE', () => {
    const { ops } = replay([
      { type: 'ADDED', pod: pod('a', '1') },
      { type: 'MODIFIED', pod: pod('a', '2', { status: { phase: 'Running' } }) },
      { type: 'MODIFIED', pod: pod('a', '3', { status: { phase: 'Running' }, metadata: { name: 'pod-a', namespace: 'ns', uid: 'a', labels: { tier: 'web' } } }) },
      { type: 'MODIFIED', pod: pod('a', '4', { status: { phase: 'Running' }, metadata: { name: 'pod-a', namespace: 'ns', uid: 'a', labels: { tier: 'web' }, deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 } }) },
      { type: 'DELETED', pod: pod('a', '5') },
    ]);
    expect(ops).toEqual([['ADD a'], ['RECONCILE a'], ['UPDATE a'], ['DELETE a'], ['REMOVE a']]);
  });

  it('keeps API uids and stamps the source annotation the status manager reads', () => {
    const { state } = replay([{ type: 'ADDED', pod: pod('a', '1') }]);
    const stored = Object.values(state.pods[API] ?? {})[0] as Pod;
    expect(stored.metadata.uid).toBe('a');
    expect(stored.metadata.annotations?.['kubernetes.io/config.source']).toBe('api');
  });

  it('does not run mirror pods', () => {
    const mirror = pod('m', '1');
    mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'h' };
    const { ops } = replay([{ type: 'ADDED', pod: mirror }]);
    expect(ops).toEqual([[]]);
  });
});
