import { describe, expect, it } from 'vitest';
import { computePodQOS, podQOS } from '../../../src/domain/pod/qos.js';
import type { Container, Pod, ResourceRequirements } from '../../../src/domain/pod/types.js';

function pod(resources: (ResourceRequirements | undefined)[], init: (ResourceRequirements | undefined)[] = []): Pod {
  const container = (r: ResourceRequirements | undefined, i: number, prefix: string): Container => ({ name: `${prefix}${i}`, image: 'busybox:1.36', ...(r ? { resources: r } : {}) });
  return {
    metadata: { name: 'p', uid: 'u' },
    spec: { containers: resources.map((r, i) => container(r, i, 'c')), initContainers: init.map((r, i) => container(r, i, 'i')) },
  };
}

const full = { requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '0.5', memory: '134217728' } };

describe('computePodQOS', () => {
  it.each<[string, Pod, string]>([
    ['no resources anywhere', pod([undefined, undefined]), 'BestEffort'],
    ['zero requests only', pod([{ requests: { cpu: '0' } }]), 'BestEffort'],
    ['requests equal limits for cpu and memory (different spellings)', pod([full]), 'Guaranteed'],
    ['limits only (requests not yet defaulted)', pod([{ limits: { cpu: '1', memory: '1Gi' } }]), 'Burstable'],
    ['a cpu limit without a memory limit', pod([{ requests: { cpu: '1' }, limits: { cpu: '1' } }]), 'Burstable'],
    ['requests below limits', pod([{ requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '1Gi' } }]), 'Burstable'],
    ['one guaranteed and one best-effort container', pod([full, undefined]), 'Burstable'],
    ['an init container without limits', pod([full], [undefined]), 'Burstable'],
    ['extended resources do not count', pod([{ ...full, requests: { ...full.requests, 'nvidia.com/gpu': '1' } }]), 'Guaranteed'],
  ])('%s → %s', (_, p, expected) => {
    expect(computePodQOS(p)).toBe(expected);
  });

  it('prefers the class the API server put in the status', () => {
    expect(podQOS({ ...pod([undefined]), status: { qosClass: 'Guaranteed' } })).toBe('Guaranteed');
    expect(podQOS(pod([undefined]))).toBe('BestEffort');
  });
});
