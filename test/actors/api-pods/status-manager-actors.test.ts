import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { outputOf } from '../../support/answer-of.js';
import { createStatusManagerActors } from '../../../src/actors/api-pods/status-manager-actors.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { KubeObject, PodApi } from '../../../src/ports/apiserver.js';

const logger = pino({ level: 'silent' });

type Calls = PodApi['patchPodStatus'] | PodApi['deletePod'] | PodApi['createPod'] | PodApi['getPod'];

/** A fake of the four pod calls: each answers what the test scripted, and records its arguments. */
function fakePods(script: { patch?: () => KubeObject; delete?: () => void; create?: () => KubeObject; get?: () => KubeObject }) {
  const calls: unknown[][] = [];
  const record = <F extends Calls>(name: string, answer: (() => unknown) | undefined) =>
    (async (...args: unknown[]) => {
      calls.push([name, ...args]);
      if (!answer) throw new Error(`${name} not scripted`);
      return answer();
    }) as unknown as F;
  return {
    calls,
    pods: {
      patchPodStatus: record<PodApi['patchPodStatus']>('patch', script.patch),
      deletePod: record<PodApi['deletePod']>('delete', script.delete),
      createPod: record<PodApi['createPod']>('create', script.create),
      getPod: record<PodApi['getPod']>('get', script.get),
    },
  };
}

const mirrorPod: Pod = {
  metadata: { name: 'etcd', namespace: 'kube-system', uid: '', annotations: { 'kubernetes.io/config.mirror': 'h1' } },
  spec: { containers: [] },
};

describe('status manager actors', () => {
  it('deletes with grace 0 and the uid precondition; a pod already gone counts as deleted', async () => {
    const fake = fakePods({ delete: () => { throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'gone'); } });
    const actors = createStatusManagerActors({ pods: fake.pods, logger });
    const result = await outputOf(actors.deletePod, { kind: 'deletePod', podUid: 'u', namespace: 'ns', name: 'p', uid: 'u' });
    expect(result).toEqual({ kind: 'deletePod', podUid: 'u', ok: true });
    expect(fake.calls).toEqual([['delete', 'ns', 'p', { gracePeriodSeconds: 0, uid: 'u' }]]);
  });

  it('answers a patch with what the status manager reads of the stored pod: its uid, resourceVersion and status', async () => {
    const stored = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '7', managedFields: [{ manager: 'kubelet' }] }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } } as unknown as KubeObject;
    const fake = fakePods({ patch: () => stored });
    const actors = createStatusManagerActors({ pods: fake.pods, logger });
    const result = await outputOf(actors.patchPodStatus, { kind: 'patchPodStatus', podUid: 'u', version: 2, namespace: 'ns', name: 'p', patch: {} });
    expect(result).toEqual({ kind: 'patchPodStatus', podUid: 'u', version: 2, ok: true, pod: { metadata: { uid: 'u', resourceVersion: '7' }, status: { phase: 'Running' } } });
  });

  it('answers a failed patch as data, with the error code', async () => {
    const fake = fakePods({ patch: () => { throw new KubeletError('KLT_ERR_API_UNAVAILABLE', 'refused', { retryable: true }); } });
    const actors = createStatusManagerActors({ pods: fake.pods, logger });
    const result = await outputOf(actors.patchPodStatus, { kind: 'patchPodStatus', podUid: 'u', version: 2, namespace: 'ns', name: 'p', patch: {} });
    expect(result).toMatchObject({ kind: 'patchPodStatus', podUid: 'u', version: 2, ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE', retryable: true } });
  });

  it('creates a mirror without a uid, and takes an existing mirror of the same hash as created', async () => {
    const existing = { ...mirrorPod, metadata: { ...mirrorPod.metadata, uid: 'm1' } } as unknown as KubeObject;
    const fake = fakePods({ create: () => { throw new KubeletError('KLT_ERR_API_ALREADY_EXISTS', 'exists'); }, get: () => existing });
    const actors = createStatusManagerActors({ pods: fake.pods, logger });
    const result = await outputOf(actors.createMirrorPod, { kind: 'createMirrorPod', fullName: 'etcd_kube-system', pod: mirrorPod });
    expect(result).toMatchObject({ kind: 'createMirrorPod', ok: true, pod: { metadata: { uid: 'm1' } } });
    const sent = fake.calls[0]![2] as KubeObject;
    expect('uid' in sent.metadata).toBe(false);
  });

  it('reports a create that collides with a pod of another hash as failed', async () => {
    const other = { ...mirrorPod, metadata: { ...mirrorPod.metadata, uid: 'm1', annotations: { 'kubernetes.io/config.mirror': 'h0' } } } as unknown as KubeObject;
    const fake = fakePods({ create: () => { throw new KubeletError('KLT_ERR_API_ALREADY_EXISTS', 'exists'); }, get: () => other });
    const actors = createStatusManagerActors({ pods: fake.pods, logger });
    const result = await outputOf(actors.createMirrorPod, { kind: 'createMirrorPod', fullName: 'etcd_kube-system', pod: mirrorPod });
    expect(result).toMatchObject({ kind: 'createMirrorPod', ok: false, error: { code: 'KLT_ERR_API_ALREADY_EXISTS' } });
  });
});
