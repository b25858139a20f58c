import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createContainerManager } from '../../../src/actors/container-manager/container-manager.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { computeCgroupRoots, type CgroupConfig } from '../../../src/domain/node/cgroup-roots.js';
import { KERNEL_TUNABLES } from '../../../src/domain/node/kernel-tunables.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { computeAllocatable } from '../../../src/domain/resources/allocatable.js';
import type { SysctlReader } from '../../../src/ports/host.js';
import { FakeCgroups } from '../../fakes/fake-cgroups.js';

const GiB = 2 ** 30;
const config: CgroupConfig = {
  cgroupRoot: '/kts', cgroupsPerQOS: true, cgroupDriver: 'cgroupfs', enforceNodeAllocatable: ['pods'],
  kubeReservedCgroup: '', systemReservedCgroup: '', kubeletCgroups: '', systemCgroups: '',
};
const resources = computeAllocatable({
  numCores: 2, memoryCapacityBytes: 4 * GiB, rootFsCapacityBytes: 10 * GiB, maxPods: 110,
  kubeReserved: { cpu: '500m', memory: '1Gi' }, systemReserved: {}, evictionHard: { 'memory.available': '100Mi' },
});
const pod = (uid: string, resources?: { requests?: Record<string, string>; limits?: Record<string, string> }): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec: { containers: [{ name: 'c', image: 'busybox', ...(resources ? { resources } : {}) }] },
});
const burstable = pod('b1', { requests: { cpu: '250m' }, limits: { memory: '64Mi' } });
const guaranteed = pod('g1', { requests: { cpu: '1', memory: '128Mi' }, limits: { cpu: '1', memory: '128Mi' } });

/** /proc/sys as the host has it when every tunable holds what the kubelet expects, plus `differ`. */
function sysctl(differ: Record<string, number> = {}): SysctlReader & { reads: string[] } {
  const values = new Map([...KERNEL_TUNABLES.map((t) => [t.flag, t.expected] as const), ...Object.entries(differ)]);
  const reads: string[] = [];
  return {
    reads,
    read: async (flag) => {
      reads.push(flag);
      return values.get(flag) ?? Promise.reject(new Error(`open /proc/sys/${flag}: no such file or directory`));
    },
  };
}

interface ManagerOptions { cgroupConfig?: Partial<CgroupConfig>; active?: Pod[]; running?: string[]; protectKernelDefaults?: boolean; sysctl?: SysctlReader }

function manager(o: ManagerOptions = {}) {
  const cgroups = new FakeCgroups();
  cgroups.cgroups.set('/kts', {});
  const roots = computeCgroupRoots({ ...config, ...o.cgroupConfig });
  const cm = createContainerManager({
    cgroups, roots, resources, kubeReserved: { cpu: '500m', memory: '1Gi' }, systemReserved: {},
    pod: { enforceCpuLimits: true, cpuPeriodMicros: 100_000, podPidsLimit: -1 },
    activePods: () => o.active ?? [],
    possiblyRunning: () => new Set(o.running ?? []),
    protectKernelDefaults: o.protectKernelDefaults ?? false,
    sysctl: o.sysctl ?? sysctl(),
    logger: pino({ level: 'silent' }),
  });
  return { cgroups, cm };
}

describe('createContainerManager', () => {
  it('starts by capping kubepods at the allocatable and creating the QoS cgroups', async () => {
    const { cgroups, cm } = manager();
    const out = await cm.start();
    expect(cgroups.cgroups.get('/kts/kubepods')).toEqual({ cpuShares: 1536, memoryLimitBytes: 3 * GiB });
    expect(cgroups.cgroups.get('/kts/kubepods/burstable')).toEqual({ cpuShares: 2 });
    expect(cgroups.cgroups.get('/kts/kubepods/besteffort')).toEqual({ cpuShares: 2 });
    expect(out).toMatchObject({ qosCgroups: true, cgroupVersion: 'v1', enforced: ['pods'] });
  });

  it('updates an existing kubepods instead of creating it (a restart)', async () => {
    const { cgroups, cm } = manager();
    cgroups.cgroups.set('/kts/kubepods', { cpuShares: 2 });
    await cm.start();
    expect(cgroups.calls).toContain('update /kts/kubepods');
    expect(cgroups.calls).not.toContain('create /kts/kubepods');
  });

  it('creates a pod cgroup under its QoS cgroup after the start, with the QoS shares updated first', async () => {
    const { cgroups, cm } = manager({ active: [burstable, guaranteed] });
    const ensured = cm.ensurePod(burstable);
    await cm.start();
    expect(await ensured).toBe('/kts/kubepods/burstable/podb1');
    expect(cgroups.cgroups.get('/kts/kubepods/burstable/podb1')).toEqual({ cpuShares: 256, memoryLimitBytes: 64 * 2 ** 20 });
    expect(cgroups.cgroups.get('/kts/kubepods/burstable')).toEqual({ cpuShares: 256 });
    expect(await cm.ensurePod(guaranteed)).toBe('/kts/kubepods/podg1');
    expect(cm.cgroupParentFor(guaranteed)).toBe('/kts/kubepods/podg1');
  });

  it('writes the QoS cgroups before a new pod cgroup only when their values change', async () => {
    const active: Pod[] = [];
    const { cgroups, cm } = manager({ active });
    await cm.start();
    const qosWrites = () => cgroups.calls.filter((c) => c === 'update /kts/kubepods/burstable' || c === 'update /kts/kubepods/besteffort').length;
    active.push(pod('e1'));
    await cm.ensurePod(pod('e1'));
    active.push(pod('e2'));
    await cm.ensurePod(pod('e2'));
    expect(qosWrites()).toBe(0); // BestEffort pods: the shares stay 2 and 2
    active.push(burstable);
    await cm.ensurePod(burstable);
    expect(qosWrites()).toBe(2);
    expect(cgroups.cgroups.get('/kts/kubepods/burstable')).toEqual({ cpuShares: 256 });
  });

  it('refuses the cgroup of a pod whose uid holds a `_`, creating nothing, and names no cgroup parent for it', async () => {
    const { cgroups, cm } = manager();
    await cm.start();
    const calls = cgroups.calls.length;
    await expect(cm.ensurePod(pod('x_1'))).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP', message: expect.stringContaining('"x_1"') });
    expect(() => cm.cgroupParentFor(pod('x_1'))).toThrow(expect.objectContaining({ code: 'KLT_ERR_CGROUP' }));
    expect(cgroups.calls.slice(calls)).toEqual([]);
  });

  it('rejects waiting pods when the start fails', async () => {
    const { cgroups, cm } = manager();
    cgroups.failNext = { op: 'exists', error: new KubeletError('KLT_ERR_CGROUP', 'EROFS') };
    const ensured = cm.ensurePod(burstable);
    await expect(cm.start()).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP' });
    await expect(ensured).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP' });
  });

  it('destroys the cgroups of pods that may no longer run, keeping the others and the QoS cgroups', async () => {
    const { cgroups, cm } = manager({ running: ['live'] });
    await cm.start();
    for (const p of ['/kts/kubepods/podgone', '/kts/kubepods/burstable/podlive', '/kts/kubepods/besteffort/podkept', '/kts/kubepods/besteffort/podold']) cgroups.cgroups.set(p, {});
    expect(await cm.cleanup(['kept'])).toEqual({ removed: ['/kts/kubepods/podgone', '/kts/kubepods/besteffort/podold'] });
    expect([...cgroups.cgroups.keys()].filter((p) => p.startsWith('/kts/kubepods')).sort()).toEqual([
      '/kts/kubepods', '/kts/kubepods/besteffort', '/kts/kubepods/besteffort/podkept', '/kts/kubepods/burstable', '/kts/kubepods/burstable/podlive',
    ]);
  });

  it('enforces kube-reserved on its existing cgroup, and fails when it does not exist', async () => {
    const enforce = { enforceNodeAllocatable: ['pods', 'kube-reserved'], kubeReservedCgroup: '/kube' };
    const ok = manager({ cgroupConfig: enforce });
    ok.cgroups.cgroups.set('/kube', {});
    expect((await ok.cm.start()).enforced).toEqual(['pods', 'kube-reserved']);
    expect(ok.cgroups.cgroups.get('/kube')).toEqual({ cpuShares: 512, memoryLimitBytes: GiB });
    await expect(manager({ cgroupConfig: enforce }).cm.start()).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP' });
  });

  it('reads, computes and writes a pod cgroup\'s settings for an in-place resize; a pod without one reads as undefined', async () => {
    const { cgroups, cm } = manager({ active: [guaranteed] });
    await cm.start();
    expect(await cm.readPod(guaranteed)).toBeUndefined();
    await cm.ensurePod(guaranteed);
    expect(await cm.readPod(guaranteed)).toEqual({ cpuShares: 1024, cpuQuota: 100_000, cpuPeriod: 100_000, memoryLimitBytes: 128 * 2 ** 20 });
    const bigger = pod('g1', { requests: { cpu: '2', memory: '128Mi' }, limits: { cpu: '2', memory: '128Mi' } });
    expect(cm.desiredPod(bigger)).toEqual({ cpuShares: 2048, cpuQuota: 200_000, cpuPeriod: 100_000, memoryLimitBytes: 128 * 2 ** 20 });
    await cm.updatePod(bigger, { cpuQuota: 200_000 });
    expect(cgroups.cgroups.get('/kts/kubepods/podg1')).toMatchObject({ cpuShares: 1024, cpuQuota: 200_000 });
  });

  it('does nothing and names no cgroup parent without cgroupsPerQOS', async () => {
    const { cgroups, cm } = manager({ cgroupConfig: { cgroupsPerQOS: false, enforceNodeAllocatable: [], cgroupRoot: '' } });
    expect(await cm.start()).toMatchObject({ qosCgroups: false });
    expect(await cm.ensurePod(burstable)).toBeUndefined();
    expect(cm.cgroupParentFor(burstable)).toBeUndefined();
    expect(await cm.readPod(burstable)).toBeUndefined();
    expect(cgroups.calls).toEqual([]);
  });
});

describe('the kernel tunables at the container manager start (protectKernelDefaults)', () => {
  const NO_QOS: Partial<CgroupConfig> = { cgroupsPerQOS: false, enforceNodeAllocatable: [], cgroupRoot: '' };

  it.each([['with', {}], ['without', NO_QOS]] as const)('starts %s QoS cgroups when every tunable holds its value', async (_with, cgroupConfig) => {
    const host = sysctl();
    const { cm } = manager({ cgroupConfig, protectKernelDefaults: true, sysctl: host });
    await expect(cm.start()).resolves.toBeDefined();
    expect(host.reads.sort()).toEqual(KERNEL_TUNABLES.map((t) => t.flag).sort());
  });

  it.each([['with', {}], ['without', NO_QOS]] as const)('fails the start %s QoS cgroups naming each tunable that differs, before any cgroup', async (_with, cgroupConfig) => {
    const { cgroups, cm } = manager({ cgroupConfig, protectKernelDefaults: true, sysctl: sysctl({ 'vm/overcommit_memory': 0, 'kernel/panic': -1 }) });
    await expect(cm.start()).rejects.toThrow(
      '[invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0, invalid kernel flag: kernel/panic, expected value: 10, actual value: -1]',
    );
    expect(cgroups.calls).toEqual([]);
  });

  it('reads no tunable without protectKernelDefaults (Go would write them; kubelet-ts leaves them)', async () => {
    const host = sysctl({ 'vm/overcommit_memory': 0 });
    const { cm } = manager({ protectKernelDefaults: false, sysctl: host });
    await expect(cm.start()).resolves.toMatchObject({ qosCgroups: true });
    expect(host.reads).toEqual([]);
  });
});
