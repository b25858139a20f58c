import { describe, expect, it } from 'vitest';
import { nodeAllocatableCgroupConfig, qosCgroupConfigs, reservedCgroupConfig } from '../../../src/domain/cgroups/qos-cgroups.js';
import { computeAllocatable } from '../../../src/domain/resources/allocatable.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (uid: string, requests?: Record<string, string>, limits?: Record<string, string>): Pod => ({
  metadata: { name: uid, uid },
  spec: { containers: [{ name: 'a', image: 'x', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } }] },
});

describe('qosCgroupConfigs', () => {
  it('sums the cpu requests of the Burstable pods alone into the burstable shares', () => {
    const pods = [pod('b1', { cpu: '250m' }), pod('b2', { cpu: '750m', memory: '1Mi' }), pod('g', { cpu: '2', memory: '1Mi' }, { cpu: '2', memory: '1Mi' }), pod('be')];
    expect(qosCgroupConfigs(pods)).toEqual({ burstable: { cpuShares: 1024 }, bestEffort: { cpuShares: 2 } });
  });

  it('gives burstable the minimum shares when no Burstable pod runs', () => {
    expect(qosCgroupConfigs([]).burstable).toEqual({ cpuShares: 2 });
  });
});

describe('nodeAllocatableCgroupConfig', () => {
  const resources = computeAllocatable({
    numCores: 2, memoryCapacityBytes: 4 * 2 ** 30, rootFsCapacityBytes: 10 * 2 ** 30, maxPods: 110,
    kubeReserved: { cpu: '100m', memory: '256Mi' }, systemReserved: { cpu: '400m', memory: '768Mi' }, evictionHard: { 'memory.available': '100Mi' },
  });

  it('caps kubepods at capacity minus the reservations when pods is enforced (eviction thresholds not taken off)', () => {
    expect(nodeAllocatableCgroupConfig(resources, true)).toEqual({ cpuShares: 1536, memoryLimitBytes: 3 * 2 ** 30 });
  });

  it('gives kubepods the whole capacity when pods is not enforced', () => {
    expect(nodeAllocatableCgroupConfig(resources, false)).toEqual({ cpuShares: 2048, memoryLimitBytes: 4 * 2 ** 30 });
  });

  it('limits kubepods\' pids to the kernel\'s task limit, less the reserved pids when enforced, and leaves them alone when it is unknown', () => {
    const pids = { capacity: 32_768, reserved: 1000 };
    expect(nodeAllocatableCgroupConfig(resources, true, pids).pidsLimit).toBe(31_768);
    expect(nodeAllocatableCgroupConfig(resources, false, pids).pidsLimit).toBe(32_768);
    expect(nodeAllocatableCgroupConfig(resources, true, { capacity: null, reserved: 1000 })).not.toHaveProperty('pidsLimit');
  });
});

describe('reservedCgroupConfig', () => {
  it('turns a reservation into shares, memory and pids, or shares alone for the compressible keys', () => {
    expect(reservedCgroupConfig({ cpu: '500m', memory: '1Gi', pid: '1000' })).toEqual({ cpuShares: 512, memoryLimitBytes: 2 ** 30, pidsLimit: 1000 });
    expect(reservedCgroupConfig({ cpu: '500m', memory: '1Gi' }, true)).toEqual({ cpuShares: 512 });
  });
});
