import { describe, expect, it } from 'vitest';
import { podCgroupName, podUidOfCgroup, resourceConfigForPod } from '../../../src/domain/cgroups/pod-cgroup.js';
import { sliceOf } from '../../../src/domain/cgroups/systemd-units.js';
import { computeCgroupRoots } from '../../../src/domain/node/cgroup-roots.js';
import type { Container, Pod, ResourceRequirements } from '../../../src/domain/pod/types.js';

const container = (name: string, resources?: ResourceRequirements): Container => ({ name, image: 'busybox', ...(resources ? { resources } : {}) });
const pod = (containers: Container[], init: Container[] = []): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers, ...(init.length > 0 ? { initContainers: init } : {}) },
});
const settings = { enforceCpuLimits: true, cpuPeriodMicros: 100_000, podPidsLimit: -1 };
const roots = computeCgroupRoots({
  cgroupRoot: '/kts', cgroupsPerQOS: true, cgroupDriver: 'cgroupfs', enforceNodeAllocatable: ['pods'],
  kubeReservedCgroup: '', systemReservedCgroup: '', kubeletCgroups: '', systemCgroups: '',
});
const guaranteed = pod([container('a', { requests: { cpu: '500m', memory: '64Mi' }, limits: { cpu: '500m', memory: '64Mi' } })]);
const burstable = pod([container('a', { requests: { cpu: '250m', memory: '32Mi' }, limits: { memory: '64Mi' } })]);
const bestEffort = pod([container('a')]);

describe('resourceConfigForPod', () => {
  it('sets shares, quota, period and the memory limit of a Guaranteed pod', () => {
    expect(resourceConfigForPod(guaranteed, settings)).toEqual({ cpuShares: 512, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitBytes: 64 * 1024 * 1024 });
  });

  it('sets no quota on a Burstable pod whose containers do not all limit cpu, but the memory limit they all declare', () => {
    expect(resourceConfigForPod(burstable, settings)).toEqual({ cpuShares: 256, memoryLimitBytes: 64 * 1024 * 1024 });
  });

  it('leaves a Burstable pod unlimited in memory when one container has no memory limit', () => {
    const p = pod([container('a', { requests: { cpu: '100m' }, limits: { cpu: '200m', memory: '10Mi' } }), container('b', { limits: { cpu: '100m' } })]);
    expect(resourceConfigForPod(p, settings)).toEqual({ cpuShares: 102, cpuQuota: 30_000, cpuPeriod: 100_000 });
  });

  it('gives a BestEffort pod the minimum shares only', () => {
    expect(resourceConfigForPod(bestEffort, settings)).toEqual({ cpuShares: 2 });
  });

  it('writes an unlimited quota when cpuCFSQuota is off, and the pids limit when podPidsLimit is positive', () => {
    expect(resourceConfigForPod(guaranteed, { ...settings, enforceCpuLimits: false, podPidsLimit: 100 })).toMatchObject({ cpuQuota: -1, pidsLimit: 100 });
  });

  it('counts the init containers peak for requests and limits', () => {
    const p = pod(
      [container('a', { requests: { cpu: '100m', memory: '10Mi' }, limits: { cpu: '100m', memory: '10Mi' } })],
      [container('i', { requests: { cpu: '1', memory: '20Mi' }, limits: { cpu: '1', memory: '20Mi' } })],
    );
    expect(resourceConfigForPod(p, settings)).toEqual({ cpuShares: 1024, cpuQuota: 100_000, cpuPeriod: 100_000, memoryLimitBytes: 20 * 1024 * 1024 });
  });
});

describe('podCgroupName', () => {
  it.each([
    ['Guaranteed', guaranteed, ['kts', 'kubepods', 'podu1']],
    ['Burstable', burstable, ['kts', 'kubepods', 'burstable', 'podu1']],
    ['BestEffort', bestEffort, ['kts', 'kubepods', 'besteffort', 'podu1']],
  ])('puts a %s pod in its QoS cgroup', (_klass, p, components) => {
    expect(podCgroupName(roots.qos!, p)).toEqual(components);
  });

  // Under the systemd driver `x-1` and `x_1` were one slice: destroying one pod stopped the other's.
  it.each(['x_1', 'a/b'])('refuses a pod uid with a character no cgroup name component may hold (%j), as Go\'s NewCgroupName does', (uid) => {
    const p: Pod = { ...bestEffort, metadata: { ...bestEffort.metadata, uid } };
    expect(() => podCgroupName(roots.qos!, p)).toThrow(expect.objectContaining({ code: 'KLT_ERR_CGROUP', message: expect.stringContaining(JSON.stringify(uid)) }));
  });

  it('refuses the `_` because the systemd driver would give `x-1` and `x_1` one slice', () => {
    const systemd = computeCgroupRoots({
      cgroupRoot: '/', cgroupsPerQOS: true, cgroupDriver: 'systemd', enforceNodeAllocatable: ['pods'],
      kubeReservedCgroup: '', systemReservedCgroup: '', kubeletCgroups: '', systemCgroups: '',
    });
    const components = podCgroupName(systemd.qos!, { ...bestEffort, metadata: { ...bestEffort.metadata, uid: 'x-1' } });
    expect(sliceOf(components).unit).toBe('kubepods-besteffort-podx_1.slice');
    expect(sliceOf([...components.slice(0, -1), 'podx_1']).unit).toBe(sliceOf(components).unit);
  });

  it('reads a pod uid back from the directory name, and nothing from other names', () => {
    expect(podUidOfCgroup('pod1234-abcd')).toBe('1234-abcd');
    expect(podUidOfCgroup('burstable')).toBeNull();
    expect(podUidOfCgroup('pod')).toBeNull();
  });
});
