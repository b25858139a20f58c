import { describe, expect, it } from 'vitest';
import { cdiDeviceIds, claimInfoFromClaim, preparedWith, prepareBatches, withoutPod, withPod } from '../../../src/domain/dra/claim-info.js';
import { claimDrivers, claimRefusal, podClaimName } from '../../../src/domain/dra/pod-claims.js';
import type { ResourceClaim } from '../../../src/domain/dra/resource-claim.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod: Pod = {
  metadata: { name: 'trainer', namespace: 'ml', uid: 'pod-1' },
  spec: {
    containers: [{ name: 'c', image: 'i' }],
    resourceClaims: [
      { name: 'shared', resourceClaimName: 'gpus' },
      { name: 'own', resourceClaimTemplateName: 'one-gpu' },
      { name: 'skipped', resourceClaimTemplateName: 'maybe' },
      { name: 'broken' },
    ],
  },
  status: { resourceClaimStatuses: [{ name: 'own', resourceClaimName: 'trainer-own-x7k' }, { name: 'skipped' }] },
};
const [shared, own, skipped, broken] = pod.spec.resourceClaims!;

function claim(extra: Partial<ResourceClaim['metadata']> = {}, status: ResourceClaim['status'] = {}): ResourceClaim {
  return {
    metadata: { name: 'trainer-own-x7k', namespace: 'ml', uid: 'claim-1', ...extra },
    status: {
      allocation: { devices: { results: [
        { request: 'r', driver: 'gpu.example.com', pool: 'n', device: 'gpu-0' },
        { request: 'r', driver: 'gpu.example.com', pool: 'n', device: 'gpu-1' },
        { request: 'nic', driver: 'net.example.com', pool: 'n', device: 'eth1' },
      ] } },
      reservedFor: [{ resource: 'pods', name: 'trainer', uid: 'pod-1' }],
      ...status,
    },
  };
}
const owned = { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'trainer', uid: 'pod-1', controller: true }] };

describe('podClaimName', () => {
  it('names a claim from the spec, or from the status for a template (then its owner is checked), as Go\'s resourceclaim.Name', () => {
    expect(podClaimName(pod, shared!)).toEqual({ kind: 'name', name: 'gpus', mustCheckOwner: false });
    expect(podClaimName(pod, own!)).toEqual({ kind: 'name', name: 'trainer-own-x7k', mustCheckOwner: true });
    expect(podClaimName(pod, skipped!)).toEqual({ kind: 'none' });
    expect(podClaimName({ ...pod, status: {} }, own!)).toEqual({ kind: 'error', message: 'pod "ml/trainer": ResourceClaim not created yet' });
    expect(podClaimName(pod, broken!)).toEqual({ kind: 'error', message: 'pod "ml/trainer", spec.resourceClaim "broken": none of the supported fields are set' });
  });
});

describe('claimRefusal', () => {
  it('accepts an allocated claim reserved for the pod, and made for it when it came from a template', () => {
    expect(claimRefusal(pod, claim(owned), true)).toBeNull();
    expect(claimRefusal(pod, claim(), false)).toBeNull();
  });

  it('refuses, in Go\'s order and words: not made for the pod, not reserved for it, not allocated', () => {
    const notOwner = 'ResourceClaim ml/trainer-own-x7k was not created for pod ml/trainer (pod is not owner)';
    expect(claimRefusal(pod, claim(), true)).toBe(notOwner);
    expect(claimRefusal(pod, claim({ ownerReferences: [{ ...owned.ownerReferences[0]!, controller: false }] }), true)).toBe(notOwner);
    expect(claimRefusal(pod, claim({ ...owned, namespace: 'other' }), true)).toBe('ResourceClaim other/trainer-own-x7k was not created for pod ml/trainer (pod is not owner)');
    expect(claimRefusal(pod, claim(owned, { reservedFor: [{ resource: 'pods', name: 'else', uid: 'pod-2' }] }), true))
      .toBe('pod trainer (pod-1) is not allowed to use ResourceClaim trainer-own-x7k (claim-1)');
    expect(claimRefusal(pod, { ...claim(), status: { reservedFor: [{ resource: 'pods', name: 'trainer', uid: 'pod-1' }] } }, false)).toBe('ResourceClaim trainer-own-x7k: not allocated');
  });
});

describe('the claim info', () => {
  it('has one driver per driver of the allocation, each prepared in one batch with its other claims', () => {
    expect(claimDrivers(claim())).toEqual(['gpu.example.com', 'net.example.com']);
    const a = withPod(claimInfoFromClaim(claim()), 'pod-1');
    const b = withPod(claimInfoFromClaim(claim({ name: 'gpus', uid: 'claim-2' }, { allocation: { devices: { results: [{ request: 'r', driver: 'gpu.example.com', pool: 'n', device: 'gpu-2' }] } } })), 'pod-1');
    expect(a).toMatchObject({ claimUid: 'claim-1', claimName: 'trainer-own-x7k', namespace: 'ml', podUids: ['pod-1'], prepared: false });
    expect([...prepareBatches([a, b])]).toEqual([
      ['gpu.example.com', [{ namespace: 'ml', uid: 'claim-1', name: 'trainer-own-x7k' }, { namespace: 'ml', uid: 'claim-2', name: 'gpus' }]],
      ['net.example.com', [{ namespace: 'ml', uid: 'claim-1', name: 'trainer-own-x7k' }]],
    ]);
    // A prepared claim is not asked for again, whichever pod comes next.
    const prepared = withPod(preparedWith(a, {}), 'pod-2');
    expect(prepared.podUids).toEqual(['pod-1', 'pod-2']);
    expect([...prepareBatches([prepared, b])].map(([d, claims]) => [d, claims.map((c) => c.name)])).toEqual([['gpu.example.com', ['gpus']]]);
    expect(withoutPod(withoutPod(prepared, 'pod-1'), 'pod-2').podUids).toEqual([]);
  });

  it('gives a container the CDI ids of the devices serving its request, or of all of them', () => {
    const info = preparedWith(claimInfoFromClaim(claim()), {
      'net.example.com': [{ poolName: 'n', deviceName: 'eth1', requestNames: [], cdiDeviceIds: ['net.example.com/nic=eth1'] }],
      'gpu.example.com': [
        { poolName: 'n', deviceName: 'gpu-0', requestNames: ['r'], cdiDeviceIds: ['gpu.example.com/gpu=gpu-0'] },
        { poolName: 'n', deviceName: 'gpu-1', requestNames: ['other'], cdiDeviceIds: ['gpu.example.com/gpu=gpu-1', 'gpu.example.com/gpu=common'] },
      ],
    });
    expect(cdiDeviceIds(info, undefined)).toEqual(['gpu.example.com/gpu=gpu-0', 'gpu.example.com/gpu=gpu-1', 'gpu.example.com/gpu=common', 'net.example.com/nic=eth1']);
    // eth1 serves every request (it names none).
    expect(cdiDeviceIds(info, 'r')).toEqual(['gpu.example.com/gpu=gpu-0', 'net.example.com/nic=eth1']);
    expect(info.prepared).toBe(true);
  });
});
