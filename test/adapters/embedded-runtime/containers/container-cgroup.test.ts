import { describe, expect, it } from 'vitest';
import { containerResources, reportedResources } from '../../../../src/adapters/embedded-runtime/containers/container-cgroup.js';
import type { LinuxContainerResources__Output } from '../../../../src/generated/runtime/v1/LinuxContainerResources.js';

describe('containerResources', () => {
  it('keeps the positive cpu and memory settings, leaving CRI\'s zeros (unset) out', () => {
    const resources = { cpu_shares: '512', cpu_period: '100000', cpu_quota: '0', memory_limit_in_bytes: '16777216', oom_score_adj: '1000' } as Partial<LinuxContainerResources__Output>;
    expect(containerResources(resources as LinuxContainerResources__Output)).toEqual({ cpuShares: 512, cpuPeriod: 100_000, memoryLimitBytes: 16_777_216 });
  });

  it('keeps the CPU manager\'s cpuset', () => {
    const resources = { cpuset_cpus: '1', cpuset_mems: '0' } as Partial<LinuxContainerResources__Output>;
    expect(containerResources(resources as LinuxContainerResources__Output)).toEqual({ cpusetCpus: '1', cpusetMems: '0' });
  });

  it('answers nothing without resources', () => {
    expect(containerResources(null)).toBeUndefined();
  });
});

describe('reportedResources', () => {
  it('reports the settings kept on the record in CRI\'s form, cpuset included', () => {
    expect(reportedResources({ cpuShares: 512, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitBytes: 16_777_216, cpusetCpus: '1' }))
      .toEqual({ linux: { cpu_shares: '512', cpu_quota: '50000', cpu_period: '100000', memory_limit_in_bytes: '16777216', cpuset_cpus: '1' } });
    expect(reportedResources(containerResources({ cpu_shares: '102', cpu_quota: '0' } as LinuxContainerResources__Output))).toEqual({ linux: { cpu_shares: '102' } });
  });

  it('reports nothing for a container given no resources', () => {
    expect(reportedResources(undefined)).toBeNull();
  });
});
