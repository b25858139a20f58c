import { describe, expect, it } from 'vitest';
import { areSourcesReady, initialPodConfigState, mergedPods, mergeSnapshot, type PodConfigState } from '../../../src/domain/pod-config/merge.js';
import type { PodOperation, PodSourceName } from '../../../src/domain/pod-config/types.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

function pod(uid: string, edit: (p: Pod) => void = () => {}): Pod {
  const p: Pod = {
    metadata: { name: `pod-${uid}`, namespace: 'default', uid, labels: { app: uid }, annotations: { 'kubernetes.io/config.hash': uid, team: 'a' } },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
    status: { phase: 'Pending' },
  };
  edit(p);
  return p;
}

/** The ops of one merge as `OP:uid,uid`, in emission order. */
const summary = (updates: { op: PodOperation; pods: Pod[] }[]) => updates.map((u) => `${u.op}:${u.pods.map((p) => p.metadata.uid).join(',')}`);

function after(snapshots: [PodSourceName, Pod[]][]): PodConfigState {
  return snapshots.reduce((state, [source, pods], i) => mergeSnapshot(state, source, pods, T0 + i).state, initialPodConfigState());
}

describe('mergeSnapshot', () => {
  it.each<[string, Pod[], Pod[], string[]]>([
    ['ADD for pods the source had not given', [], [pod('a'), pod('b')], ['ADD:a,b']],
    ['nothing when nothing changed', [pod('a')], [pod('a')], []],
    ['REMOVE for a pod gone from the source', [pod('a'), pod('b')], [pod('a')], ['REMOVE:b']],
    ['UPDATE when the spec changed', [pod('a')], [pod('a', (p) => { p.spec.containers[0]!.image = 'busybox:1.37'; })], ['UPDATE:a']],
    ['UPDATE when a label changed', [pod('a')], [pod('a', (p) => { p.metadata.labels = { app: 'x' }; })], ['UPDATE:a']],
    ['UPDATE when an annotation of the source changed', [pod('a')], [pod('a', (p) => { p.metadata.annotations!['team'] = 'b'; })], ['UPDATE:a']],
    ['nothing when only a kubelet-owned annotation differs', [pod('a')], [pod('a', (p) => { p.metadata.annotations!['kubernetes.io/config.mirror'] = 'm'; })], []],
    ['DELETE when graceful deletion is requested', [pod('a')], [pod('a', (p) => { p.metadata.deletionTimestamp = '2026-01-02T00:00:00Z'; p.metadata.deletionGracePeriodSeconds = 10; })], ['DELETE:a']],
    ['RECONCILE when only the status changed', [pod('a')], [pod('a', (p) => { p.status = { phase: 'Running' }; })], ['RECONCILE:a']],
    ['UPDATE (not RECONCILE) when spec and status changed', [pod('a')], [pod('a', (p) => { p.spec.restartPolicy = 'Never'; p.status = { phase: 'Running' }; })], ['UPDATE:a']],
    ['operations in Go order: REMOVE, ADD, UPDATE, DELETE, RECONCILE',
      [pod('gone'), pod('upd'), pod('del'), pod('rec')],
      [pod('rec', (p) => { p.status = {}; }), pod('del', (p) => { p.metadata.deletionTimestamp = 't'; }), pod('upd', (p) => { p.spec.hostNetwork = true; }), pod('new')],
      ['REMOVE:gone', 'ADD:new', 'UPDATE:upd', 'DELETE:del', 'RECONCILE:rec']],
    ['a second pod of the same name dropped', [], [pod('a'), pod('b', (p) => { p.metadata.name = 'pod-a'; })], ['ADD:a']],
  ])('emits %s', (_what, before, now, expected) => {
    const state = after([['file', before]]);
    expect(summary(mergeSnapshot(state, 'file', now, T0 + 100).updates)).toEqual(expected);
  });

  it('stamps added pods with their source and first-seen time', () => {
    const [update] = mergeSnapshot(initialPodConfigState(), 'http', [pod('a')], T0).updates;
    expect(update?.source).toBe('http');
    expect(update?.pods[0]?.metadata.annotations).toMatchObject({
      'kubernetes.io/config.source': 'http',
      'kubernetes.io/config.seen': '2026-01-02T03:04:05.678Z',
      team: 'a',
    });
  });

  it('keeps the first-seen time and takes the new spec on UPDATE', () => {
    const state = after([['file', [pod('a')]]]);
    const changed = pod('a', (p) => { p.spec.containers[0]!.image = 'busybox:1.37'; p.metadata.annotations!['team'] = 'b'; });
    const { state: next, updates } = mergeSnapshot(state, 'file', [changed], T0 + 5000);
    const stored = updates[0]?.pods[0];
    expect(stored?.spec.containers[0]?.image).toBe('busybox:1.37');
    expect(stored?.metadata.annotations?.['kubernetes.io/config.seen']).toBe(new Date(T0).toISOString());
    expect(stored?.metadata.annotations?.['team']).toBe('b');
    // Applying the same snapshot again changes nothing: the stored pod is compared, not the old one.
    expect(mergeSnapshot(next, 'file', [changed], T0 + 6000).updates).toEqual([]);
  });

  it('takes the new generation with the new spec on UPDATE, as Go does, for the status to observe', () => {
    const state = after([['api', [pod('a', (p) => { p.metadata.generation = 1; })]]]);
    const changed = pod('a', (p) => { p.metadata.generation = 2; p.spec.activeDeadlineSeconds = 3600; });
    const [update] = mergeSnapshot(state, 'api', [changed], T0 + 5000).updates;
    expect([update?.op, update?.pods[0]?.metadata.generation]).toEqual(['UPDATE', 2]);
  });

  it('keeps sources apart: a snapshot of one source never removes the pods of another', () => {
    const state = after([['file', [pod('a')]], ['http', [pod('b')]]]);
    const { state: next, updates } = mergeSnapshot(state, 'http', [], T0 + 9);
    expect(summary(updates)).toEqual(['REMOVE:b']);
    expect(mergedPods(next).map((p) => p.metadata.uid)).toEqual(['a']);
  });

  // The apiserver source re-sends the objects of unchanged pods as they were (api-pod-source.ts): the
  // stored pod takes the incoming objects over when they are equal, so the next compare is by identity.
  it('answers the same for re-sent objects as for copies, and keeps the re-sent objects to compare by identity', () => {
    const pods = [pod('a'), pod('b'), pod('c')];
    const snapshots: Pod[][] = [
      pods,
      [pods[0]!, pod('b', (p) => { p.status = { phase: 'Running' }; }), pods[2]!],
      [pods[0]!, pod('b', (p) => { p.status = { phase: 'Running' }; p.metadata.labels = { app: 'b2' }; }), pods[2]!],
      [pod('a', (p) => { p.metadata.annotations!['team'] = 'b'; }), pods[1]!, pods[2]!],
    ];
    let shared = initialPodConfigState();
    let copied = initialPodConfigState();
    snapshots.forEach((snapshot, i) => {
      const a = mergeSnapshot(shared, 'api', snapshot, T0 + i);
      const b = mergeSnapshot(copied, 'api', structuredClone(snapshot), T0 + i);
      expect(JSON.stringify(a.updates)).toBe(JSON.stringify(b.updates));
      expect(JSON.stringify(a.state)).toBe(JSON.stringify(b.state));
      [shared, copied] = [a.state, b.state];
    });
  });

  it('stores the incoming spec, labels and status after a RECONCILE, so the same object re-sent compares by identity', () => {
    const state = after([['api', [pod('a')]]]);
    const running = pod('a', (p) => { p.status = { phase: 'Running' }; });
    const { state: next, updates } = mergeSnapshot(state, 'api', [running], T0 + 1);
    expect(summary(updates)).toEqual(['RECONCILE:a']);
    const stored = next.pods.api!['a']!;
    expect(stored.spec).toBe(running.spec);
    expect(stored.metadata.labels).toBe(running.metadata.labels);
    expect(stored.status).toBe(running.status);
    expect(stored.metadata.annotations?.['kubernetes.io/config.seen']).toBe(new Date(T0).toISOString());
  });

  it('stores the resourceVersion a new status came with, on a RECONCILE and on an UPDATE', () => {
    const state = after([['api', [pod('a', (p) => { p.metadata.resourceVersion = '10'; })]]]);
    const reconciled = mergeSnapshot(state, 'api', [pod('a', (p) => { p.metadata.resourceVersion = '11'; p.status = { phase: 'Running' }; })], T0 + 1);
    expect(summary(reconciled.updates)).toEqual(['RECONCILE:a']);
    expect(reconciled.updates[0]!.pods[0]!.metadata.resourceVersion).toBe('11');
    const updated = mergeSnapshot(reconciled.state, 'api', [pod('a', (p) => { p.metadata.resourceVersion = '12'; p.spec.restartPolicy = 'Never'; })], T0 + 2);
    expect(summary(updated.updates)).toEqual(['UPDATE:a']);
    expect(updated.updates[0]!.pods[0]!.metadata.resourceVersion).toBe('12');
  });

  it('does not change the state it is given', () => {
    const state = after([['file', [pod('a')]]]);
    const copy = structuredClone(state);
    mergeSnapshot(state, 'file', [pod('a', (p) => { p.spec.restartPolicy = 'Never'; })], T0 + 1);
    expect(state).toEqual(copy);
  });
});

describe('areSourcesReady', () => {
  it.each<[string, PodSourceName[], PodSourceName[], boolean]>([
    ['no source configured', [], [], true],
    ['a configured source not seen yet', ['file'], [], false],
    ['every configured source seen, even with no pods', ['file', 'http'], ['file', 'http'], true],
    ['one of two seen', ['file', 'http'], ['http'], false],
  ])('is %s → %s', (_what, configured, seen, ready) => {
    const state = after(seen.map((s) => [s, []] as [PodSourceName, Pod[]]));
    expect(areSourcesReady(state, configured)).toBe(ready);
  });
});
