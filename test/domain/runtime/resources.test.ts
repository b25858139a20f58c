import { describe, expect, it } from 'vitest';
import { containerOomScoreAdj, linuxContainerResources, milliCpuToQuota, milliCpuToShares } from '../../../src/domain/runtime/resources.js';
import type { Container, Pod, ResourceRequirements } from '../../../src/domain/pod/types.js';

const GiB = 1024 ** 3;

function podOf(resources: ResourceRequirements | undefined, extra: Partial<Pod['spec']> = {}): { pod: Pod; container: Container } {
  const container: Container = { name: 'c', image: 'x:1', ...(resources ? { resources } : {}) };
  return { pod: { metadata: { name: 'p', uid: 'u' }, spec: { containers: [container], ...extra } }, container };
}

describe('milliCpuToShares', () => {
  it.each([[0, 2], [1, 2], [2, 2], [10, 10], [100, 102], [250, 256], [1000, 1024], [4000, 4096], [1_000_000, 262144]])('%i millicores → %i shares', (milli, shares) => {
    expect(milliCpuToShares(milli)).toBe(shares);
  });
});

describe('milliCpuToQuota', () => {
  it.each([[0, 0], [1, 1000], [5, 1000], [10, 1000], [250, 25000], [1500, 150000]])('%i millicores → quota %i over 100 ms', (milli, quota) => {
    expect(milliCpuToQuota(milli, 100_000)).toBe(quota);
  });
});

describe('containerOomScoreAdj', () => {
  it.each<[string, ResourceRequirements | undefined, number]>([
    ['Guaranteed', { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }, -997],
    ['BestEffort', undefined, 1000],
    ['Burstable requesting 10% of memory', { requests: { memory: `${0.4 * GiB}` } }, 900],
    ['Burstable requesting nothing (1000 → 999)', { requests: { cpu: '100m' } }, 999],
    ['Burstable requesting all memory (clamped to 3)', { requests: { memory: '4Gi' }, limits: { memory: '8Gi' } }, 3],
  ])('%s → %i', (_, resources, expected) => {
    const { pod, container } = podOf(resources);
    expect(containerOomScoreAdj(pod, container, 4 * GiB)).toBe(expected);
  });

  it('never scores a sidecar above the regular container that requests least, as Go does', () => {
    const sidecar: Container = { name: 'proxy', image: 'x:1', restartPolicy: 'Always', resources: { requests: { memory: `${0.1 * GiB}` } } };
    const main: Container = { name: 'main', image: 'x:1', resources: { requests: { memory: `${0.4 * GiB}` } } };
    const pod: Pod = { metadata: { name: 'p', uid: 'u' }, spec: { initContainers: [sidecar], containers: [main] } };
    expect(containerOomScoreAdj(pod, main, 4 * GiB)).toBe(900);
    expect(containerOomScoreAdj(pod, sidecar, 4 * GiB)).toBe(900);
  });

  it('adds the pod-level memory request the containers leave unshared, split among every container', () => {
    const a: Container = { name: 'a', image: 'x:1', resources: { requests: { memory: '400Mi' } } };
    const b: Container = { name: 'b', image: 'x:1' };
    const pod: Pod = { metadata: { name: 'p', uid: 'u' }, spec: { containers: [a, b], resources: { requests: { memory: '1200Mi' } } } };
    // 800 Mi unshared, 400 Mi each: a counts 800 Mi of 4000 (800), b 400 Mi (900).
    const capacity = 4000 * 2 ** 20;
    expect([containerOomScoreAdj(pod, a, capacity), containerOomScoreAdj(pod, b, capacity)]).toEqual([800, 900]);
  });

  it('protects node-critical pods like Guaranteed ones', () => {
    const { pod, container } = podOf(undefined, { priorityClassName: 'system-node-critical' });
    expect(containerOomScoreAdj(pod, container, 4 * GiB)).toBe(-997);
  });
});

describe('linuxContainerResources', () => {
  it('derives shares from requests, quota from limits, period 100000 and the memory limit', () => {
    const { pod, container } = podOf({ requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } });
    expect(linuxContainerResources(pod, container, { memoryCapacityBytes: 4 * GiB })).toEqual({
      cpu_shares: '256', cpu_period: '100000', cpu_quota: '50000', memory_limit_in_bytes: String(128 * 1024 * 1024), oom_score_adj: '985',
    });
  });

  it('holds a container without limits to its pod\'s pod-level limits, and keeps a container\'s own', () => {
    const free: Container = { name: 'free', image: 'x:1' };
    const own: Container = { name: 'own', image: 'x:1', resources: { limits: { cpu: '250m', memory: '64Mi' } } };
    const pod: Pod = { metadata: { name: 'p', uid: 'u' }, spec: { containers: [free, own], resources: { limits: { cpu: '1', memory: '256Mi' } } } };
    expect(linuxContainerResources(pod, free, { memoryCapacityBytes: 4 * GiB })).toMatchObject({ cpu_quota: '100000', memory_limit_in_bytes: String(256 * 1024 * 1024) });
    expect(linuxContainerResources(pod, own, { memoryCapacityBytes: 4 * GiB })).toMatchObject({ cpu_quota: '25000', memory_limit_in_bytes: String(64 * 1024 * 1024) });
  });

  it('takes shares from the limit when no request is given', () => {
    const { pod, container } = podOf({ limits: { cpu: '2' } });
    expect(linuxContainerResources(pod, container, { memoryCapacityBytes: GiB }).cpu_shares).toBe('2048');
  });

  it('gives minimal shares, no quota and no memory limit to a best-effort container', () => {
    const { pod, container } = podOf(undefined);
    expect(linuxContainerResources(pod, container, { memoryCapacityBytes: GiB })).toEqual({ cpu_shares: '2', cpu_period: '100000', cpu_quota: '0', oom_score_adj: '1000' });
  });

  it('sets no CFS quota or period with --cpu-cfs-quota=false', () => {
    const { pod, container } = podOf({ limits: { cpu: '1' } });
    const r = linuxContainerResources(pod, container, { memoryCapacityBytes: GiB, cpuCfsQuota: false });
    expect(r.cpu_quota).toBeUndefined();
    expect(r.cpu_period).toBeUndefined();
  });
});
