import { describe, expect, it } from 'vitest';
import type { AdmissionNode } from '../../../src/domain/pod/admission-node.js';
import { EMPTY_USAGE, usageOf } from '../../../src/domain/pod/node-usage.js';
import type { Container, Pod, ResourceRequirements } from '../../../src/domain/pod/types.js';
import { allocatedPod, allocationFromPod, specMatchesAllocation } from '../../../src/domain/resize/allocation.js';
import { decideResize, type ResizeContext } from '../../../src/domain/resize/resize-decision.js';

const node: AdmissionNode = {
  name: 'node-a', operatingSystem: 'linux', labels: {}, taints: [],
  allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 2 ** 40, pods: 110 },
};
const ctx: ResizeContext = { node, others: EMPTY_USAGE, cpuManagerStatic: false, memoryManagerStatic: false };

const res = (cpu: string, memory: string, limits = true): ResourceRequirements => ({ requests: { cpu, memory }, ...(limits ? { limits: { cpu, memory } } : {}) });

function pod(main: ResourceRequirements, extra: Partial<Pod['spec']> = {}, source = 'api'): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u', generation: 2, annotations: { 'kubernetes.io/config.source': source } },
    spec: { containers: [{ name: 'main', image: 'busybox', resources: main }], ...extra },
  };
}

describe('allocation', () => {
  it('counts regular containers and sidecars, not classic init containers', () => {
    const sidecar: Container = { name: 'side', image: 'busybox', restartPolicy: 'Always', resources: res('100m', '64Mi') };
    const init: Container = { name: 'init', image: 'busybox', resources: res('1', '1Gi') };
    expect(Object.keys(allocationFromPod(pod(res('200m', '128Mi'), { initContainers: [init, sidecar] })))).toEqual(['side', 'main']);
  });

  it('compares quantities by value, not by spelling', () => {
    expect(specMatchesAllocation(pod(res('1', '1Gi')), { main: res('1000m', '1073741824') })).toBe(true);
    expect(specMatchesAllocation(pod(res('1', '1Gi')), { main: res('1001m', '1Gi') })).toBe(false);
  });

  it('gives the pod its allocated resources, and the same object when they match', () => {
    const p = pod(res('500m', '256Mi'));
    expect(allocatedPod(p, allocationFromPod(p))).toBe(p);
    expect(allocatedPod(p, { main: res('200m', '128Mi') }).spec.containers[0]?.resources).toEqual(res('200m', '128Mi'));
    expect(p.spec.containers[0]?.resources).toEqual(res('500m', '256Mi'));
  });
});

describe('decideResize', () => {
  const allocated = { main: res('200m', '128Mi') };

  it('has nothing to do when the spec asks what is allocated', () => {
    expect(decideResize(pod(res('200m', '128Mi')), allocated, ctx)).toEqual({ kind: 'unchanged' });
  });

  it('allocates a resize that fits', () => {
    expect(decideResize(pod(res('400m', '256Mi')), allocated, ctx)).toEqual({ kind: 'allocated', allocation: { main: res('400m', '256Mi') } });
  });

  it('refuses a static pod as Go does', () => {
    expect(decideResize(pod(res('400m', '256Mi'), {}, 'file'), allocated, ctx)).toEqual({ kind: 'pending', reason: 'Infeasible', message: 'In-place resize of static-pods is not supported' });
  });

  it('finds a resize beyond the node allocatable infeasible, memory named first', () => {
    expect(decideResize(pod(res('1000', '128Mi')), allocated, ctx)).toEqual({ kind: 'pending', reason: 'Infeasible', message: "Node didn't have enough capacity: cpu, requested: 1000000, capacity: 2000" });
    expect(decideResize(pod(res('1000', '8Gi')), allocated, ctx)).toEqual({ kind: 'pending', reason: 'Infeasible', message: `Node didn't have enough capacity: memory, requested: ${8 * 2 ** 30}, capacity: ${4 * 2 ** 30}` });
  });

  it('defers a resize that fits the node but not beside the other pods, with admission\'s message', () => {
    const others = usageOf([{ ...pod(res('1500m', '1Gi')), metadata: { name: 'other', uid: 'o' } }]);
    expect(decideResize(pod(res('800m', '128Mi')), allocated, { ...ctx, others })).toEqual({
      kind: 'pending', reason: 'Deferred', message: "Node didn't have enough resource: cpu, requested: 800, used: 1500, capacity: 2000",
    });
  });

  it('refuses a Guaranteed pod\'s CPU change under the static CPU manager, not its memory change', () => {
    const statik = { ...ctx, cpuManagerStatic: true };
    expect(decideResize(pod(res('400m', '128Mi')), allocated, statik)).toMatchObject({ kind: 'pending', reason: 'Infeasible', message: 'Resize is infeasible for Guaranteed Pods alongside CPU Manager policy "static"' });
    expect(decideResize(pod(res('200m', '256Mi')), allocated, statik)).toMatchObject({ kind: 'allocated' });
    // Burstable: its CPUs are the shared pool's, so the static policy does not stand in the way.
    expect(decideResize(pod(res('400m', '128Mi', false)), { main: res('200m', '128Mi', false) }, statik)).toMatchObject({ kind: 'allocated' });
  });
});
