import { describe, expect, it } from 'vitest';
import { podLimits, podRequests } from '../../../src/domain/pod/resource-requests.js';
import { isExtendedResourceName, isScalarResourceName } from '../../../src/domain/pod/resource-names.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const c = (name: string, requests: Record<string, string>, sidecar = false): Container => ({
  name, image: 'busybox', resources: { requests }, ...(sidecar ? { restartPolicy: 'Always' as const } : {}),
});
const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p', uid: 'u' }, spec: { containers: [], ...spec } });

describe('podRequests', () => {
  it('sums the containers, cpu in millicores and memory in bytes, rounded up', () => {
    expect(podRequests(pod({ containers: [c('a', { cpu: '250m', memory: '64Mi' }), c('b', { cpu: '0.5', memory: '1k' })] }))).toEqual({
      cpu: 750, memory: 64 * 2 ** 20 + 1000,
    });
    expect(podRequests(pod({ containers: [c('a', { cpu: '0.1m' })] }))).toEqual({ cpu: 1 });
  });

  it('takes the larger of the containers\' sum and the biggest init container, per resource (the scheduler\'s example)', () => {
    const p = pod({
      initContainers: [c('i1', { cpu: '2', memory: '1G' }), c('i2', { cpu: '2', memory: '3G' })],
      containers: [c('c1', { cpu: '2', memory: '1G' }), c('c2', { cpu: '1', memory: '1G' })],
    });
    expect(podRequests(p)).toEqual({ cpu: 3000, memory: 3e9 });
  });

  it('adds sidecars to the sum and to every later init container\'s use', () => {
    const p = pod({
      initContainers: [c('side', { cpu: '1' }, true), c('init', { cpu: '3' })],
      containers: [c('main', { cpu: '1' })],
    });
    // Running: main + side = 2; while `init` runs beside the sidecar: 3 + 1 = 4.
    expect(podRequests(p)).toEqual({ cpu: 4000 });
  });

  it('uses pod-level cpu and memory requests in place of the containers\', then adds the overhead', () => {
    const p = pod({
      containers: [c('a', { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi' })],
      resources: { requests: { cpu: '500m', memory: '2Gi' } },
      overhead: { cpu: '100m', memory: '1Mi' },
    });
    expect(podRequests(p)).toEqual({ cpu: 600, memory: 2 * 2 ** 30 + 2 ** 20, 'ephemeral-storage': 2 ** 30 });
  });

  it('keeps the scalar resources and drops names the scheduler does not count', () => {
    const p = pod({ containers: [c('a', { 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi', widgets: '3', pods: '1' })] });
    expect(podRequests(p)).toEqual({ 'example.com/gpu': 2, 'hugepages-2Mi': 4 * 2 ** 20 });
  });

  it('leaves out an amount that is not a quantity instead of throwing', () => {
    expect(podRequests(pod({ containers: [c('a', { cpu: 'lots', memory: '1Ki' })] }))).toEqual({ memory: 1024 });
  });
});

describe('resource names', () => {
  it.each([
    ['example.com/gpu', true, true],
    ['nvidia.com/gpu', true, true],
    ['kubernetes.io/something', false, true],
    ['hugepages-1Gi', false, true],
    ['attachable-volumes-csi-x', false, true],
    ['cpu', false, false],
    ['widgets', false, false],
    ['requests.example.com/x', false, false],
  ])('%s: extended %s, scalar %s', (name, extended, scalar) => {
    expect(isExtendedResourceName(name)).toBe(extended);
    expect(isScalarResourceName(name)).toBe(scalar);
  });
});

describe('podLimits', () => {
  const limited = (name: string, limits: Record<string, string>, sidecar = false): Container => ({
    name, image: 'busybox', resources: { limits }, ...(sidecar ? { restartPolicy: 'Always' as const } : {}),
  });

  it('sums the containers and sidecars, takes the init peak, and adds the overhead only to limited resources', () => {
    const p = pod({
      containers: [limited('a', { cpu: '200m' }), limited('b', { cpu: '100m', memory: '10Mi' })],
      initContainers: [limited('side', { cpu: '100m' }, true), limited('init', { cpu: '2' })],
      overhead: { cpu: '10m', memory: '1Mi' },
    });
    expect(podLimits(p)).toEqual({ cpu: 2110, memory: 11 * 1024 * 1024 });
    expect(podLimits(pod({ containers: [limited('a', { cpu: '1' })], overhead: { memory: '1Mi' } }))).toEqual({ cpu: 1000 });
  });
});
