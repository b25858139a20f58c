import { describe, expect, it } from 'vitest';
import {
  cpuQuotaPerSecUsec,
  lastComponentOfSlice,
  resourceProperties,
  sliceOf,
  sliceStartProperties,
  SYSTEMD_INFINITY,
  type UnitProperty,
} from '../../../src/domain/cgroups/systemd-units.js';

/** A property list as `name → value`, in order, to compare with what busctl monitor showed of the Go kubelet's calls. */
const asPairs = (props: readonly UnitProperty[]) => props.map((p) => [p.name, p.value]);
const SYSTEMD = 252;

describe('sliceOf', () => {
  it('names the root -.slice, with no parent', () => {
    expect(sliceOf([])).toEqual({ unit: '-.slice', path: '/', parent: '' });
    expect(sliceOf([''])).toEqual({ unit: '-.slice', path: '/', parent: '' });
  });

  it('names kubepods.slice below -.slice', () => {
    expect(sliceOf(['kubepods'])).toEqual({ unit: 'kubepods.slice', path: '/kubepods.slice', parent: '-.slice' });
  });

  it("names a pod's slice with its uid's '-' escaped as '_', below its QoS slice", () => {
    expect(sliceOf(['kubepods', 'burstable', 'podda0444e9-8f1a-160e-b64f-1bbf103dd2c6'])).toEqual({
      unit: 'kubepods-burstable-podda0444e9_8f1a_160e_b64f_1bbf103dd2c6.slice',
      path: '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podda0444e9_8f1a_160e_b64f_1bbf103dd2c6.slice',
      parent: 'kubepods-burstable.slice',
    });
    expect(sliceOf(['kubepods', 'pod11111111-2222-3333-4444-555555555555']).unit).toBe('kubepods-pod11111111_2222_3333_4444_555555555555.slice');
    expect(sliceOf(['kubepods', 'pod11111111-2222-3333-4444-555555555555']).parent).toBe('kubepods.slice');
  });

  it('refuses an empty component and one with a /, naming the slice', () => {
    expect(() => sliceOf(['kubepods', ''])).toThrow(/invalid slice name: kubepods-\.slice/);
    expect(() => sliceOf(['', 'kubepods'])).toThrow(/invalid slice name/);
    expect(() => sliceOf(['kubepods', 'a/b'])).toThrow(/invalid slice name: kubepods-a\/b\.slice/);
  });
});

describe('lastComponentOfSlice', () => {
  it("gives back a slice's last component with '-' restored", () => {
    for (const components of [['kubepods'], ['kubepods', 'burstable'], ['kubepods', 'besteffort', 'pod1234-ab'], ['kubepods', 'pod11111111-2222-3333-4444-555555555555']]) {
      expect(lastComponentOfSlice(sliceOf(components).unit)).toBe(components.at(-1));
    }
  });

  it('is null for the root slice and for what is not a slice', () => {
    expect(lastComponentOfSlice('-.slice')).toBeNull();
    expect(lastComponentOfSlice('cri-containerd-0123abcd.scope')).toBeNull();
    expect(lastComponentOfSlice('kubepods')).toBeNull();
    expect(lastComponentOfSlice('kubepods.slice.d')).toBeNull();
  });
});

describe('sliceStartProperties', () => {
  it("is runc's for a slice made without a process, as the Go kubelet made kubepods.slice (v1)", () => {
    const props = sliceStartProperties(sliceOf(['kubepods']), 'v1');
    expect(asPairs(props)).toEqual([
      ['Description', 'libcontainer container kubepods.slice'],
      ['Wants', ['-.slice']],
      ['MemoryAccounting', true],
      ['CPUAccounting', true],
      ['BlockIOAccounting', true],
      ['TasksAccounting', true],
      ['DefaultDependencies', false],
    ]);
    expect(props.map((p) => p.signature)).toEqual(['s', 'as', 'b', 'b', 'b', 'b', 'b']);
  });

  it('wants the parent slice', () => {
    expect(sliceStartProperties(sliceOf(['kubepods', 'burstable']), 'v1')[1]!.value).toEqual(['kubepods.slice']);
    expect(sliceStartProperties(sliceOf(['kubepods', 'burstable', 'podda0444e98f1a160eb64f1bbf103dd2c6']), 'v1')[1]!.value).toEqual(['kubepods-burstable.slice']);
  });

  it('asks for IOAccounting on v2, where BlockIOAccounting is gone', () => {
    const names = sliceStartProperties(sliceOf(['kubepods']), 'v2').map((p) => p.name);
    expect(names).toContain('IOAccounting');
    expect(names).not.toContain('BlockIOAccounting');
  });
});

describe('resourceProperties (v1), against the Go kubelet v1.26 in the same lab', () => {
  it('kubepods.slice: node allocatable', () => {
    expect(asPairs(resourceProperties({ memoryLimitBytes: 25_276_063_744, cpuShares: 2048, pidsLimit: 192_729 }, 'v1', SYSTEMD))).toEqual([
      ['MemoryLimit', 25_276_063_744n],
      ['CPUShares', 2048n],
      ['TasksMax', 192_729n],
    ]);
  });

  it('a QoS slice: nothing at creation, its shares later', () => {
    expect(resourceProperties({}, 'v1', SYSTEMD)).toEqual([]);
    expect(asPairs(resourceProperties({ cpuShares: 102 }, 'v1', SYSTEMD))).toEqual([['CPUShares', 102n]]);
  });

  it('a Burstable pod (100m, 32Mi requested, 64Mi limit, podPidsLimit 1024)', () => {
    expect(asPairs(resourceProperties({ memoryLimitBytes: 67_108_864, cpuShares: 102, pidsLimit: 1024 }, 'v1', SYSTEMD))).toEqual([
      ['MemoryLimit', 67_108_864n],
      ['CPUShares', 102n],
      ['TasksMax', 1024n],
    ]);
  });

  it('a BestEffort pod', () => {
    expect(asPairs(resourceProperties({ cpuShares: 2, pidsLimit: 1024 }, 'v1', SYSTEMD))).toEqual([['CPUShares', 2n], ['TasksMax', 1024n]]);
  });

  it('a Guaranteed pod (250m, 64Mi): the period and the quota per second', () => {
    const props = resourceProperties({ memoryLimitBytes: 67_108_864, cpuShares: 256, cpuQuota: 25_000, cpuPeriod: 100_000, pidsLimit: 1024 }, 'v1', SYSTEMD);
    expect(asPairs(props)).toEqual([
      ['MemoryLimit', 67_108_864n],
      ['CPUShares', 256n],
      ['CPUQuotaPeriodUSec', 100_000n],
      ['CPUQuotaPerSecUSec', 250_000n],
      ['TasksMax', 1024n],
    ]);
    expect(props.every((p) => p.signature === 't')).toBe(true);
  });

  it('sends -1 as infinity, the largest uint64, for memory and tasks', () => {
    expect(SYSTEMD_INFINITY).toBe(18_446_744_073_709_551_615n);
    expect(asPairs(resourceProperties({ memoryLimitBytes: -1, pidsLimit: -1 }, 'v1', SYSTEMD))).toEqual([
      ['MemoryLimit', SYSTEMD_INFINITY],
      ['TasksMax', SYSTEMD_INFINITY],
    ]);
  });

  it('leaves out zeros and a pids limit of 0 or below other than -1, as runc does', () => {
    expect(resourceProperties({ memoryLimitBytes: 0, cpuShares: 0, cpuQuota: 0, cpuPeriod: 0, pidsLimit: 0 }, 'v1', SYSTEMD)).toEqual([]);
    expect(resourceProperties({ pidsLimit: -2 }, 'v1', SYSTEMD)).toEqual([]);
  });

  it('sends no quota (infinity) for a quota of -1 with a period', () => {
    expect(asPairs(resourceProperties({ cpuQuota: -1, cpuPeriod: 100_000 }, 'v1', SYSTEMD))).toEqual([
      ['CPUQuotaPeriodUSec', 100_000n],
      ['CPUQuotaPerSecUSec', SYSTEMD_INFINITY],
    ]);
  });

  it('leaves out CPUQuotaPeriodUSec below systemd 242, which refuses it, but keeps the quota', () => {
    const config = { cpuQuota: 25_000, cpuPeriod: 100_000 };
    expect(asPairs(resourceProperties(config, 'v1', 241))).toEqual([['CPUQuotaPerSecUSec', 250_000n]]);
    expect(asPairs(resourceProperties(config, 'v1', 242))).toEqual([['CPUQuotaPeriodUSec', 100_000n], ['CPUQuotaPerSecUSec', 250_000n]]);
  });
});

describe('resourceProperties (v2)', () => {
  it('sends MemoryMax and CPUWeight (from the shares) instead of MemoryLimit and CPUShares', () => {
    const props = resourceProperties({ memoryLimitBytes: 67_108_864, cpuShares: 256, cpuQuota: 25_000, cpuPeriod: 100_000, pidsLimit: 1024 }, 'v2', SYSTEMD);
    expect(asPairs(props)).toEqual([
      ['MemoryMax', 67_108_864n],
      ['CPUWeight', 10n],
      ['CPUQuotaPeriodUSec', 100_000n],
      ['CPUQuotaPerSecUSec', 250_000n],
      ['TasksMax', 1024n],
    ]);
  });

  it('converts the extremes of the shares to the extremes of the weight', () => {
    expect(asPairs(resourceProperties({ cpuShares: 2 }, 'v2', SYSTEMD))).toEqual([['CPUWeight', 1n]]);
    expect(asPairs(resourceProperties({ cpuShares: 262_144 }, 'v2', SYSTEMD))).toEqual([['CPUWeight', 10_000n]]);
    expect(asPairs(resourceProperties({ cpuShares: 1024 }, 'v2', SYSTEMD))).toEqual([['CPUWeight', 39n]]);
  });
});

describe('cpuQuotaPerSecUsec', () => {
  it('is the quota per second when it is whole 10 ms', () => {
    expect(cpuQuotaPerSecUsec(1000, 100_000)).toBe(10_000n);
    expect(cpuQuotaPerSecUsec(15_000, 100_000)).toBe(150_000n);
    expect(cpuQuotaPerSecUsec(200_000, 100_000)).toBe(2_000_000n);
  });

  it('rounds up to the next 10 ms, since systemd keeps a whole percentage', () => {
    expect(cpuQuotaPerSecUsec(333, 100_000)).toBe(10_000n); // 3330 µs/s
    expect(cpuQuotaPerSecUsec(25_100, 100_000)).toBe(260_000n); // 251000 µs/s
    expect(cpuQuotaPerSecUsec(10_001, 100_000)).toBe(110_000n); // 100010 µs/s
    expect(cpuQuotaPerSecUsec(1000, 3333)).toBe(310_000n); // 300030 µs/s, the division truncated first
  });

  it('assumes the default 100 ms period for a quota given without one', () => {
    expect(cpuQuotaPerSecUsec(50_000, undefined)).toBe(500_000n);
    expect(asPairs(resourceProperties({ cpuQuota: 50_000 }, 'v1', SYSTEMD))).toEqual([['CPUQuotaPerSecUSec', 500_000n]]);
  });

  it('is infinity for no quota (0 or -1)', () => {
    expect(cpuQuotaPerSecUsec(-1, 100_000)).toBe(SYSTEMD_INFINITY);
    expect(cpuQuotaPerSecUsec(0, 100_000)).toBe(SYSTEMD_INFINITY);
  });
});
