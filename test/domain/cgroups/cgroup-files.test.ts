import { describe, expect, it } from 'vitest';
import { cgroupFileWrites, parseCgroupFiles } from '../../../src/domain/cgroups/cgroup-files.js';

const config = { cpuShares: 512, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitBytes: 67_108_864, pidsLimit: -1 };

describe('cgroupFileWrites', () => {
  it('writes v1 files in their controllers, the period before the quota', () => {
    expect(cgroupFileWrites('v1', config)).toEqual([
      { controller: 'cpu', file: 'cpu.shares', value: '512' },
      { controller: 'cpu', file: 'cpu.cfs_period_us', value: '100000' },
      { controller: 'cpu', file: 'cpu.cfs_quota_us', value: '50000' },
      { controller: 'memory', file: 'memory.limit_in_bytes', value: '67108864' },
      { controller: 'pids', file: 'pids.max', value: 'max' },
    ]);
  });

  it('writes v2 files with the weight conversion and cpu.max', () => {
    expect(cgroupFileWrites('v2', config)).toEqual([
      { controller: '', file: 'cpu.weight', value: '20' },
      { controller: '', file: 'cpu.max', value: '50000 100000' },
      { controller: '', file: 'memory.max', value: '67108864' },
      { controller: '', file: 'pids.max', value: 'max' },
    ]);
    expect(cgroupFileWrites('v2', { cpuQuota: -1, cpuPeriod: 100_000, memoryLimitBytes: -1 })).toEqual([
      { controller: '', file: 'cpu.max', value: 'max 100000' },
      { controller: '', file: 'memory.max', value: 'max' },
    ]);
  });

  it('writes the cpuset in its controller on v1 and in the one directory on v2', () => {
    expect(cgroupFileWrites('v1', { cpusetCpus: '1-2', cpusetMems: '0' })).toEqual([
      { controller: 'cpuset', file: 'cpuset.cpus', value: '1-2' },
      { controller: 'cpuset', file: 'cpuset.mems', value: '0' },
    ]);
    expect(cgroupFileWrites('v2', { cpusetCpus: '1' })).toEqual([{ controller: '', file: 'cpuset.cpus', value: '1' }]);
  });

  it('writes nothing for settings left out', () => {
    expect(cgroupFileWrites('v1', {})).toEqual([]);
  });
});

describe('parseCgroupFiles', () => {
  it('reads v1 files back', () => {
    expect(parseCgroupFiles('v1', { 'cpu.shares': '512', 'cpu.cfs_period_us': '100000', 'cpu.cfs_quota_us': '-1', 'memory.limit_in_bytes': '67108864', 'pids.max': 'max' }))
      .toEqual({ cpuShares: 512, cpuPeriod: 100_000, cpuQuota: -1, memoryLimitBytes: 67_108_864, pidsLimit: -1 });
  });

  it('reads v2 files back, max as unlimited', () => {
    expect(parseCgroupFiles('v2', { 'cpu.weight': '10000', 'cpu.max': 'max 100000', 'memory.max': 'max' }))
      .toEqual({ cpuShares: 262_144, cpuQuota: -1, cpuPeriod: 100_000, memoryLimitBytes: -1 });
  });
});
