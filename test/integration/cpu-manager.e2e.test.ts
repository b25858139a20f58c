/**
 * The CPU manager's static policy end to end, in cluster mode on the real control plane
 * (kube-lab.ts), on containerd (KUBELET_IT_CRI) and on the embedded runtime, with QoS and pod
 * cgroups under a private root, on this 2-CPU machine with CPU 0 reserved
 * (reservedSystemCPUs "0"): a Guaranteed pod with cpu: 1 gets CPU 1 alone (its container's cpuset
 * cgroup says 1, and so does the kernel's view of the process), a Burstable pod runs on the shared
 * pool, which the reconcile shrinks to CPU 0 when the Guaranteed pod comes and grows back when it
 * goes; cpu_manager_state holds the assignment in Go's format; after a kubelet restart the state
 * file still holds it, the Guaranteed pod keeps its CPU, and a second Guaranteed pod is refused at
 * admission for want of CPUs; a Guaranteed pod that runs to completion gives its CPU back.
 * Each container reports its cpuset cgroup and, every 200 ms, its allowed CPUs in its log.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { detectCgroupLayout } from '../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../src/adapters/host/cgroupfs.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, cgroupsPart, containerdEndpoint, describeNeeding, type RealPart } from '../support/real-parts.js';

/** Both with QoS and pod cgroups, as a Go kubelet runs, under a root of their own (the embedded runtime gives a container a cgroup only below a pod cgroup). */
const RUNTIMES = [
  { name: 'containerd', endpoint: containerdEndpoint(), cgroupRoot: `/kts-e2e-cpu-containerd-${process.pid}` },
  { name: 'embedded', endpoint: 'embedded', cgroupRoot: `/kts-e2e-cpu-embedded-${process.pid}` },
];
// The 0.2 s is the report's pace in the container log; the test polls the log for the line it wants.
const REPORT = ['sh', '-c', 'grep -E ":cpuset:|^0::" /proc/self/cgroup; while true; do grep Cpus_allowed_list /proc/self/status; sleep 0.2; done'];
const MEMORY = '32Mi';

const twoCpus: RealPart = { name: 'a 2-CPU machine', missing: availableParallelism() === 2 ? '' : `this test reserves CPU 0 of 2; the machine has ${availableParallelism()}` };

for (const rt of RUNTIMES) describeNeeding(allOf(kubeLabPartFor(rt.endpoint), twoCpus, cgroupsPart()), `the static CPU manager on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let cgroups: Cgroupfs | null = null;
  const stateFile = () => JSON.parse(readFileSync(join(n.dir, 'root', 'cpu_manager_state'), 'utf8')) as { policyName: string; defaultCpuSet: string; entries?: Record<string, Record<string, string>>; checksum: number };

  /** The container's log lines, the CRI log format's time, stream and tag taken off. */
  const logLines = (name: string, uid: string): string[] => {
    const base = join(n.dir, 'logs', `${n.ns}_${name}_${uid}`, 'main');
    if (!existsSync(base)) return [];
    return readdirSync(base).sort().flatMap((f) => readFileSync(join(base, f), 'utf8').split('\n')).map((l) => l.split(' ').slice(3).join(' ')).filter((l) => l !== '');
  };
  /** The CPUs the kernel lets the container's process run on, as it last reported them. */
  const allowedCpus = (name: string, uid: string): string | undefined =>
    logLines(name, uid).filter((l) => l.startsWith('Cpus_allowed_list:')).at(-1)?.split(/\s+/)[1];
  /** The container's cpuset cgroup's cpus, read on the host at the path the container reported. */
  const cgroupCpus = (name: string, uid: string): string | undefined => {
    const line = logLines(name, uid).find((l) => /:cpuset:|^0::/.test(l));
    if (!line) return undefined;
    const path = line.slice(line.lastIndexOf(':') + 1);
    const file = line.startsWith('0::') ? join('/sys/fs/cgroup', path, 'cpuset.cpus.effective') : join('/sys/fs/cgroup/cpuset', path, 'cpuset.cpus');
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  };
  const runningPod = async (name: string) => n.whileUp(`${name} running`, async () => {
    const p = await n.pod(name);
    return p?.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.state?.running ? p : undefined;
  }, 60_000);
  const resources = (cpu?: string) => ({ limits: { memory: MEMORY, ...(cpu ? { cpu } : {}) }, requests: { memory: MEMORY, ...(cpu ? { cpu } : {}) } });
  const create = (name: string, cpu?: string) => n.createPod(name, { containers: [{ name: 'main', image: BUSYBOX, command: REPORT, resources: resources(cpu) }] });
  let sharedUid = '';
  let exclusiveUid = '';

  beforeAll(async () => {
    cgroups = new Cgroupfs(await detectCgroupLayout());
    await cgroups.create(rt.cgroupRoot, {});
    n = await startLabNode({
      name: `kts-cpu-${rt.name}`,
      endpoint: rt.endpoint,
      extraConfig: () => ['cpuManagerPolicy: static', 'reservedSystemCPUs: "0"', 'cpuManagerReconcilePeriod: 1s', 'cgroupsPerQOS: true', `cgroupRoot: ${rt.cgroupRoot}`, 'cgroupDriver: cgroupfs'],
      // vitest.config.ts turns QoS cgroups off for every kubelet; this file wants them.
      env: () => ({ KUBELET_TS_NO_QOS_CGROUPS: '' }),
    });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
    await cgroups?.destroy(rt.cgroupRoot);
  }, 120_000);

  it('runs a Burstable pod on the whole shared pool while no CPU is exclusive', async () => {
    await create('shared');
    sharedUid = (await runningPod('shared')).metadata.uid;
    expect(await n.whileUp('shared reports its CPUs', () => allowedCpus('shared', sharedUid), 15_000)).toBe('0-1');
    expect(cgroupCpus('shared', sharedUid)).toBe('0-1');
    expect(stateFile()).toMatchObject({ policyName: 'static', defaultCpuSet: '0-1' });
    // --reserved-cpus takes its CPU out of allocatable, as Go's system-reserved cpu.
    expect((await n.nodeObject()).status?.allocatable?.cpu).toBe('1');
  }, 90_000);

  it('gives a Guaranteed pod with cpu: 1 CPU 1 alone, and shrinks the shared pool to CPU 0', async () => {
    await create('exclusive', '1');
    exclusiveUid = (await runningPod('exclusive')).metadata.uid;
    expect(await n.whileUp('exclusive reports its CPUs', () => allowedCpus('exclusive', exclusiveUid), 15_000)).toBe('1');
    expect(cgroupCpus('exclusive', exclusiveUid)).toBe('1');
    expect(stateFile()).toMatchObject({ policyName: 'static', defaultCpuSet: '0', entries: { [exclusiveUid]: { main: '1' } } });
    // The reconcile (every second here) updates the running Burstable container.
    await n.whileUp('the shared pool shrunk to CPU 0', () => allowedCpus('shared', sharedUid) === '0', 15_000);
    expect(cgroupCpus('shared', sharedUid)).toBe('0');
  }, 90_000);

  it('keeps the assignment across a kubelet restart: the state file, the pod\'s CPU, and no CPU for a second such pod', async () => {
    const before = await n.pod('exclusive');
    await n.restart();
    expect(stateFile()).toMatchObject({ defaultCpuSet: '0', entries: { [exclusiveUid]: { main: '1' } } });
    await create('second', '1');
    const refused = await n.whileUp('second refused', async () => {
      const p = await n.pod('second');
      return p?.status?.phase === 'Failed' ? p : undefined;
    }, 60_000);
    expect(refused.status).toMatchObject({
      reason: 'UnexpectedAdmissionError',
      message: 'Pod was rejected: Allocate failed due to not enough cpus available to satisfy request, which is unexpected',
    });
    // Go's counters, since this start: the pod re-added with its CPUs, and the one refused.
    await n.whileUp('the pinning metrics', async () => {
      const { body } = await n.kubeletGet('/metrics');
      return body.includes('kubelet_cpu_manager_pinning_requests_total 2') && body.includes('kubelet_cpu_manager_pinning_errors_total 1');
    }, 15_000);
    const after = await runningPod('exclusive');
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(before?.status?.containerStatuses?.[0]?.restartCount);
    expect(allowedCpus('exclusive', exclusiveUid)).toBe('1');
    expect(cgroupCpus('exclusive', exclusiveUid)).toBe('1');
    expect(stateFile().entries).toEqual({ [exclusiveUid]: { main: '1' } });
  }, 120_000);

  it('gives the CPU back to the shared pool once the Guaranteed pod is gone', async () => {
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/exclusive`);
    await n.whileUp('exclusive gone', async () => (await n.pod('exclusive')) === undefined, 60_000);
    await n.whileUp('the state file without the assignment', () => stateFile().entries === undefined && stateFile().defaultCpuSet === '0-1', 15_000);
    await n.whileUp('the shared pool grown back to 0-1', () => allowedCpus('shared', sharedUid) === '0-1', 15_000);
    expect(cgroupCpus('shared', sharedUid)).toBe('0-1');
  }, 120_000);

  it('gives the CPU back when a Guaranteed pod runs to completion, its pod object still there', async () => {
    // A job that runs 6 s and ends; the test waits for its phase, not this.
    await n.createPod('job', { restartPolicy: 'Never', containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'grep Cpus_allowed_list /proc/self/status; sleep 6'], resources: resources('1') }] });
    const job = await runningPod('job');
    expect(stateFile().entries).toEqual({ [job.metadata.uid]: { main: '1' } });
    await n.whileUp('the shared pool shrunk to CPU 0 for the job', () => allowedCpus('shared', sharedUid) === '0', 15_000);
    await n.whileUp('job Succeeded', async () => (await n.pod('job'))?.status?.phase === 'Succeeded', 60_000);
    expect(allowedCpus('job', job.metadata.uid)).toBe('1');
    await n.whileUp('the state file without the job', () => stateFile().entries === undefined && stateFile().defaultCpuSet === '0-1', 15_000);
    await n.whileUp('the shared pool back to 0-1', () => allowedCpus('shared', sharedUid) === '0-1', 15_000);
    expect(await n.pod('job')).toBeDefined();
  }, 90_000);
});
