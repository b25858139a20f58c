import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import type { Pod, PodStatus } from '../../src/domain/pod/types.js';
import type { StatusEffect, StatusEffectResult } from '../../src/domain/status-manager/status-sync.js';
import { fromAnsweringPromise } from '../../src/machines/answering-effect.js';
import { STATUS_MANAGER_EFFECTS, statusManagerMachine } from '../../src/machines/status-manager.machine.js';
import { settle } from '../support/settle.js';

const flush = () => settle();

function apiPod(uid: string, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: 'ns', uid, annotations: { 'kubernetes.io/config.source': 'api' }, ...extra },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

function staticPod(uid: string, hash = uid): Pod {
  return {
    metadata: {
      name: `static-${uid}`,
      namespace: 'kube-system',
      uid,
      annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': hash },
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

function mirrorOf(pod: Pod, uid: string, hash?: string, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: {
      ...pod.metadata,
      uid,
      annotations: { ...pod.metadata.annotations, 'kubernetes.io/config.mirror': hash ?? pod.metadata.annotations!['kubernetes.io/config.hash']! },
      ...extra,
    },
    spec: pod.spec,
  };
}

const running = (ready: boolean, lastTransitionTime = '2026-01-01T00:00:00Z'): PodStatus => ({
  phase: 'Running',
  conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime, lastProbeTime: null }],
  containerStatuses: [{ name: 'c', ready, restartCount: 0, image: 'busybox', imageID: '', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }],
});

const terminated: PodStatus = {
  phase: 'Failed',
  containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { terminated: { exitCode: 137, reason: 'Error' } } }],
};

/**
 * The machine with effects that record their input and wait until the test answers them (or
 * answer at once when `auto` is on), on a simulated clock.
 */
function harness(opts: { auto?: boolean; nodeUid?: string } = {}) {
  const clock = new SimulatedClock();
  const calls: StatusEffect[] = [];
  const pending: { effect: StatusEffect; resolve: (r: StatusEffectResult) => void }[] = [];
  let mirrorUids = 0;
  const answer = (effect: StatusEffect): StatusEffectResult => {
    switch (effect.kind) {
      case 'patchPodStatus':
        return { kind: 'patchPodStatus', podUid: effect.podUid, version: effect.version, ok: true, pod: { metadata: { uid: (effect.patch['metadata'] as { uid: string }).uid }, status: effect.patch['status'] as PodStatus } };
      case 'deletePod':
        return { kind: 'deletePod', podUid: effect.podUid, ok: true };
      case 'createMirrorPod':
        return { kind: 'createMirrorPod', fullName: effect.fullName, ok: true, pod: { ...effect.pod, metadata: { ...effect.pod.metadata, uid: `mirror-${++mirrorUids}` } } };
      case 'deleteMirrorPod':
        return { kind: 'deleteMirrorPod', fullName: effect.fullName, ok: true };
    }
  };
  const effect = fromAnsweringPromise<StatusEffectResult, StatusEffect>((input) => {
    calls.push(input);
    if (opts.auto) return Promise.resolve(answer(input));
    return new Promise((resolve) => pending.push({ effect: input, resolve }));
  });
  const actors = Object.fromEntries(STATUS_MANAGER_EFFECTS.map((name) => [name, effect]));
  const actor = createActor(statusManagerMachine.provide({ actors }), {
    clock,
    input: { nodeName: 'node-a', ...(opts.nodeUid ? { nodeUid: opts.nodeUid } : {}) },
  });
  actor.start();
  return {
    actor,
    clock,
    calls,
    pending,
    /** Answers the oldest pending effect as the API server would. */
    async answerNext(result?: StatusEffectResult) {
      const next = pending.shift();
      if (!next) throw new Error('no pending effect');
      next.resolve(result ?? answer(next.effect));
      await flush();
    },
    patches: () => calls.filter((c): c is Extract<StatusEffect, { kind: 'patchPodStatus' }> => c.kind === 'patchPodStatus'),
  };
}

describe('statusManagerMachine', () => {
  it('patches a new status on the pod with its uid as precondition', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(false) });
    await flush();
    expect(h.patches()).toHaveLength(1);
    const patch = h.patches()[0]!;
    expect(patch).toMatchObject({ namespace: 'ns', name: 'pod-u1', version: 1 });
    expect(patch.patch).toMatchObject({ metadata: { uid: 'u1' }, status: { phase: 'Running' } });
  });

  it('sends only the newest status once the patch in flight ends (coalescing)', async () => {
    const h = harness();
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(false) });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: { ...running(false), message: 'second' } });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true, '2026-01-01T00:00:05Z') });
    await flush();
    expect(h.patches()).toHaveLength(1);
    await h.answerNext();
    expect(h.patches()).toHaveLength(2);
    expect(h.patches()[1]).toMatchObject({ version: 3 });
    expect((h.patches()[1]!.patch['status'] as PodStatus).conditions?.[0]?.status).toBe('True');
    await h.answerNext();
    expect(h.patches()).toHaveLength(2);
  });

  it('does not send a status equal to the last sent one, ignoring lastProbeTime and order', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true) });
    await flush();
    const again = running(true);
    again.conditions = [{ ...again.conditions![0]!, lastProbeTime: '2026-01-01T00:09:00Z' }];
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: again });
    await flush();
    expect(h.patches()).toHaveLength(1);
  });

  it('keeps a condition lastTransitionTime while its status does not change', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(false, '2026-01-01T00:00:00Z') });
    await flush();
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: { ...running(false, '2026-01-01T00:00:30Z'), message: 'changed' } });
    await flush();
    expect(h.patches()).toHaveLength(2);
    const sent = h.patches()[1]!.patch['status'] as PodStatus;
    expect(sent.conditions?.[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(sent.message).toBe('changed');
  });

  it('retries a failed patch at the resync every 10 s, and not before', async () => {
    const h = harness();
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true) });
    await flush();
    await h.answerNext({ kind: 'patchPodStatus', podUid: 'u1', version: 1, ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', message: 'refused', retryable: true } });
    h.clock.increment(9_999);
    await flush();
    expect(h.patches()).toHaveLength(1);
    h.clock.increment(1);
    await flush();
    expect(h.patches()).toHaveLength(2);
    await h.answerNext();
    h.clock.increment(10_000);
    await flush();
    expect(h.patches()).toHaveLength(2);
  });

  it('resends at the resync when the API server shows another status (needsReconcile)', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true) });
    await flush();
    // Someone else overwrote the status in the API server (a newer resourceVersion).
    h.actor.send({ type: 'status.pods.known', pods: [{ ...apiPod('u1', { resourceVersion: '99' }), status: { phase: 'Pending' } }] });
    await flush();
    expect(h.patches()).toHaveLength(1);
    h.clock.increment(10_000);
    await flush();
    expect(h.patches()).toHaveLength(2);
    expect((h.patches()[1]!.patch['status'] as PodStatus).phase).toBe('Running');
  });

  it('does not resend at the resync a field the API server dropped from its answer (an older server), until another writer changes the status', async () => {
    const h = harness();
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1', { resourceVersion: '3' })] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: { ...running(true), hostIPs: [{ ip: '192.0.2.2' }] } });
    await flush();
    // The server stores the status without hostIPs, a field it does not know.
    const { hostIPs: _dropped, ...stored } = h.patches()[0]!.patch['status'] as PodStatus;
    const answered: Pod = { ...apiPod('u1', { resourceVersion: '4' }), status: stored };
    await h.answerNext({ kind: 'patchPodStatus', podUid: 'u1', version: 1, ok: true, pod: answered });
    // The watch then brings the same pod, as another object.
    h.actor.send({ type: 'status.pods.known', pods: [structuredClone(answered)] });
    h.clock.increment(30_000);
    await flush();
    expect(h.patches()).toHaveLength(1);
    // Another writer changes the status: the resync finds the drift and sends ours again.
    h.actor.send({ type: 'status.pods.known', pods: [{ ...apiPod('u1', { resourceVersion: '7' }), status: { ...stored, phase: 'Pending' } }] });
    h.clock.increment(10_000);
    await flush();
    expect(h.patches()).toHaveLength(2);
    expect((h.patches()[1]!.patch['status'] as PodStatus).phase).toBe('Running');
  });

  it('writes the conditions others own as the API server has them, never the older copy in the kubelet\'s status', async () => {
    const h = harness({ auto: true });
    const gate = (status: 'True' | 'False') => ({ type: 'example.com/gate', status, lastTransitionTime: '2026-01-01T00:00:09Z' });
    // The API server's view: a controller just set the gate True.
    h.actor.send({ type: 'status.pods.known', pods: [{ ...apiPod('u1', { resourceVersion: '5' }), status: { phase: 'Running', conditions: [gate('True')] } }] });
    // The kubelet's status was built from an older view, where the gate was False.
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: { ...running(true), conditions: [gate('False'), ...running(true).conditions!] } });
    await flush();
    const sent = h.patches()[0]!.patch['status'] as PodStatus;
    expect(sent.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['example.com/gate=True', 'Ready=True']);
    // What was written is what the API server shows: no patch again at the resync.
    h.clock.increment(10_000);
    await flush();
    expect(h.patches()).toHaveLength(1);
  });

  it('deletes a pod being deleted with grace 0 once its status is terminal with no container running', async () => {
    const h = harness({ auto: true });
    const deleting = apiPod('u1', { deletionTimestamp: '2026-01-01T00:01:00Z', deletionGracePeriodSeconds: 30 });
    h.actor.send({ type: 'status.pods.known', pods: [deleting] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true) });
    await flush();
    expect(h.calls.filter((c) => c.kind === 'deletePod')).toHaveLength(0);
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: terminated });
    await flush();
    const kinds = h.calls.map((c) => c.kind);
    expect(kinds).toEqual(['patchPodStatus', 'patchPodStatus', 'deletePod']);
    expect(h.calls[2]).toMatchObject({ kind: 'deletePod', namespace: 'ns', name: 'pod-u1', uid: 'u1' });
    h.clock.increment(10_000);
    await flush();
    expect(h.calls.filter((c) => c.kind === 'deletePod')).toHaveLength(1);
  });

  it('deletes when the deletion request arrives after the final status was sent', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: terminated });
    await flush();
    expect(h.calls.map((c) => c.kind)).toEqual(['patchPodStatus']);
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1', { deletionTimestamp: '2026-01-01T00:01:00Z' })] });
    await flush();
    expect(h.calls.map((c) => c.kind)).toEqual(['patchPodStatus', 'deletePod']);
  });

  it('never deletes a static pod, and sends its status to its mirror pod', async () => {
    const h = harness({ auto: true, nodeUid: 'node-uid' });
    const pod = staticPod('s1');
    h.actor.send({ type: 'status.pods.known', pods: [pod] });
    h.actor.send({ type: 'pod.status.updated', podUid: 's1', status: running(true) });
    await flush();
    expect(h.patches()).toHaveLength(0); // no mirror observed yet
    h.actor.send({ type: 'api.mirrorPods.observed', pods: [mirrorOf(pod, 'm1')], observedAtMs: 0 });
    await flush();
    expect(h.patches()).toHaveLength(1);
    expect(h.patches()[0]!.patch).toMatchObject({ metadata: { uid: 'm1' } });
    expect(h.patches()[0]).toMatchObject({ namespace: 'kube-system', name: 'static-s1' });
  });

  it('creates a mirror pod for a static pod, owned by the node, once the node uid is known', async () => {
    const h = harness({ auto: true });
    const pod = staticPod('s1', 'hash-1');
    h.actor.send({ type: 'status.pods.known', pods: [pod] });
    h.actor.send({ type: 'api.mirrorPods.observed', pods: [], observedAtMs: 0 });
    await flush();
    expect(h.calls).toHaveLength(0);
    h.actor.send({ type: 'node.uid.known', nodeUid: 'node-uid' });
    await flush();
    expect(h.calls).toHaveLength(1);
    const create = h.calls[0] as Extract<StatusEffect, { kind: 'createMirrorPod' }>;
    expect(create.kind).toBe('createMirrorPod');
    expect(create.pod.metadata).toMatchObject({
      name: 'static-s1',
      namespace: 'kube-system',
      annotations: { 'kubernetes.io/config.mirror': 'hash-1' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'node-uid', controller: true }],
    });
    h.clock.increment(10_000);
    await flush();
    expect(h.calls.filter((c) => c.kind === 'createMirrorPod')).toHaveLength(1);
  });

  it('creates the mirror pod again after it was deleted from the API server', async () => {
    const h = harness({ auto: true, nodeUid: 'node-uid' });
    const pod = staticPod('s1');
    h.actor.send({ type: 'status.pods.known', pods: [pod] });
    h.actor.send({ type: 'api.mirrorPods.observed', pods: [mirrorOf(pod, 'm1')], observedAtMs: 0 });
    await flush();
    expect(h.calls.filter((c) => c.kind === 'createMirrorPod')).toHaveLength(0);
    h.actor.send({ type: 'api.mirrorPods.observed', pods: [], observedAtMs: 1 });
    await flush();
    expect(h.calls.filter((c) => c.kind === 'createMirrorPod')).toHaveLength(1);
  });

  it('replaces a mirror pod with another hash or being deleted: delete with its uid, then create', async () => {
    const h = harness({ auto: true, nodeUid: 'node-uid' });
    const pod = staticPod('s1', 'new-hash');
    h.actor.send({ type: 'status.pods.known', pods: [pod] });
    h.actor.send({ type: 'api.mirrorPods.observed', pods: [mirrorOf(pod, 'm-old', 'old-hash')], observedAtMs: 0 });
    await flush();
    expect(h.calls.map((c) => c.kind)).toEqual(['deleteMirrorPod', 'createMirrorPod']);
    expect(h.calls[0]).toMatchObject({ uid: 'm-old', namespace: 'kube-system', name: 'static-s1' });
  });

  it('deletes a mirror pod whose static pod is gone', async () => {
    const h = harness({ auto: true, nodeUid: 'node-uid' });
    const pod = staticPod('s1');
    h.actor.send({ type: 'status.pods.known', pods: [] });
    h.actor.send({ type: 'api.mirrorPods.observed', pods: [mirrorOf(pod, 'm1')], observedAtMs: 0 });
    await flush();
    expect(h.calls).toEqual([{ kind: 'deleteMirrorPod', fullName: 'static-s1_kube-system', namespace: 'kube-system', name: 'static-s1', uid: 'm1' }]);
  });

  it('drops the status of a pod no longer known', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true) });
    await flush();
    h.actor.send({ type: 'status.pods.known', pods: [] });
    await flush();
    expect(Object.keys(h.actor.getSnapshot().context.sync.statuses)).toEqual([]);
  });

  it('forgets what the API server showed of a pod no longer known, but not of one whose patch is in flight', async () => {
    const h = harness();
    const withStatus = (uid: string, resourceVersion: string): Pod => ({ ...apiPod(uid, { resourceVersion }), status: { phase: 'Pending' } });
    h.actor.send({ type: 'status.pods.known', pods: [withStatus('u1', '5'), withStatus('u2', '6')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u2', status: running(true) });
    await flush();
    expect(Object.keys(h.actor.getSnapshot().context.sync.apiStatuses).sort()).toEqual(['u1', 'u2']);
    h.actor.send({ type: 'status.pods.known', pods: [] });
    await flush();
    expect(Object.keys(h.actor.getSnapshot().context.sync.apiStatuses)).toEqual(['u2']);
    await h.answerNext();
    h.actor.send({ type: 'status.pods.known', pods: [] });
    await flush();
    expect(h.actor.getSnapshot().context.sync.apiStatuses).toEqual({});
  });

  it('stops each effect once it has answered, so none stays among its children', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [apiPod('u1'), apiPod('u2')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: terminated });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u2', status: running(true) });
    await flush();
    h.actor.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [apiPod('u1', { deletionTimestamp: '2026-01-01T00:01:00Z' })] });
    await flush();
    expect(h.calls.map((c) => c.kind)).toEqual(['patchPodStatus', 'patchPodStatus', 'deletePod']);
    expect(Object.keys(h.actor.getSnapshot().children)).toEqual([]);
  });

  it('sends a status whose patch failed again when the pods change, and leaves a sent one alone', async () => {
    const h = harness();
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1'), apiPod('u2')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: running(true) });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u2', status: running(true) });
    await flush();
    await h.answerNext({ kind: 'patchPodStatus', podUid: 'u1', version: 1, ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', message: 'refused', retryable: true } });
    await h.answerNext();
    h.actor.send({ type: 'status.pods.known', pods: [apiPod('u1'), apiPod('u2'), apiPod('u3')] });
    await flush();
    expect(h.patches().map((p) => p.podUid)).toEqual(['u1', 'u2', 'u1']);
  });
});

describe('statusManagerMachine fed by pod config updates', () => {
  it('learns pods from ADD, sees a DELETE\'s deletionTimestamp, and forgets them on REMOVE', async () => {
    const h = harness({ auto: true });
    h.actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [apiPod('u1'), apiPod('u2')] });
    h.actor.send({ type: 'pod.status.updated', podUid: 'u1', status: terminated });
    await flush();
    expect(h.patches()).toHaveLength(1);
    h.actor.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [apiPod('u1', { deletionTimestamp: '2026-01-01T00:01:00Z' })] });
    await flush();
    expect(h.calls.map((c) => c.kind)).toEqual(['patchPodStatus', 'deletePod']);
    h.actor.send({ type: 'pod.config.updated', op: 'REMOVE', source: 'api', pods: [apiPod('u1')] });
    await flush();
    expect(Object.keys(h.actor.getSnapshot().context.sync.pods)).toEqual(['u2']);
    expect(Object.keys(h.actor.getSnapshot().context.sync.statuses)).toEqual([]);
  });
});
