/**
 * In-place pod resize end to end, on the real v1.35 control plane, on containerd and on the embedded
 * runtime, with cgroups (cgroupfs driver, a private cgroup root): `kubectl patch --subresource
 * resize` as a user sends it (the pods/resize subresource). The API server accepts it only from a
 * node whose running containers report their resources; the kubelet allocates it, changes the
 * container's cgroup in place (restarts stay 0), restarts only a container whose resizePolicy asks
 * for it, shows an infeasible resize as PodResizePending/Infeasible, and keeps the allocation across
 * its own restart. The events are Go's: ResizeStarted then ResizeCompleted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { detectCgroupLayout } from '../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../src/adapters/host/cgroupfs.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { allOf, cgroupsPart, containerdEndpoint, describeNeeding } from '../support/real-parts.js';

interface ResizedStatus { name: string; restartCount?: number; containerID?: string; resources?: { requests?: Record<string, string>; limits?: Record<string, string> }; allocatedResources?: Record<string, string> }

const RUNTIMES = [{ name: 'containerd', endpoint: containerdEndpoint() }, { name: 'embedded', endpoint: 'embedded' }];

const res = (cpuReq: string, cpuLim: string, mem: string) => ({ requests: { cpu: cpuReq, memory: mem }, limits: { cpu: cpuLim, memory: mem } });

for (const rt of RUNTIMES) describeNeeding(allOf(kubeLabPartFor(rt.endpoint), cgroupsPart()), `in-place pod resize on the ${rt.name} runtime`, () => {
  const ROOT = `/kts-e2e-resize-${rt.name}-${process.pid}`;
  let n: LabNode;
  let cgroups: Cgroupfs;

  const statusOf = (pod: LabPod | undefined, name: string) => (pod?.status?.containerStatuses as ResizedStatus[] | undefined)?.find((s) => s.name === name);
  const condition = (pod: LabPod | undefined, type: string) => pod?.status?.conditions?.find((c) => c.type === type);
  const resize = async (name: string, containers: { name: string; resources: object }[]) => {
    const r = await labApi(n.lab, 'PATCH', `/api/v1/namespaces/${n.ns}/pods/${name}/resize`, { spec: { containers } }, 'application/strategic-merge-patch+json');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const containerCgroup = async (pod: LabPod, name: string) => {
    const id = statusOf(pod, name)!.containerID!.replace(/^[^:]+:\/\//, '');
    return cgroups.read(`${ROOT}/kubepods/burstable/pod${pod.metadata.uid}/${id}`);
  };

  beforeAll(async () => {
    cgroups = new Cgroupfs(await detectCgroupLayout());
    await cgroups.create(ROOT, {});
    n = await startLabNode({
      name: `kts-resize-${rt.name}`, endpoint: rt.endpoint,
      extraConfig: () => ['cgroupsPerQOS: true', `cgroupRoot: ${ROOT}`, 'cgroupDriver: cgroupfs'],
      env: () => ({ KUBELET_TS_NO_QOS_CGROUPS: '' }),
    });
    await n.createPod('resized', {
      terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP], resources: res('100m', '200m', '64Mi') },
        { name: 'restarts', image: BUSYBOX, command: ['sh', '-c', SLEEP], resources: res('100m', '200m', '64Mi'), resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] },
      ],
    });
    await n.whileUp('resized Running with its resources in its status', async () => {
      const p = await n.pod('resized');
      return p?.status?.phase === 'Running' && statusOf(p, 'main')?.resources ? p : undefined;
    }, 60_000);
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
    await cgroups?.destroy(ROOT);
  }, 120_000);

  it('changes a running container\'s CPU in place: its cgroup, its status, no restart, ResizeStarted then ResizeCompleted', async () => {
    const before = (await n.pod('resized'))!;
    expect(statusOf(before, 'main')).toMatchObject({ resources: res('100m', '200m', '64Mi'), allocatedResources: { cpu: '100m', memory: '64Mi' } });
    expect((await containerCgroup(before, 'main')).cpuQuota).toBe(20_000);
    await resize('resized', [{ name: 'main', resources: res('200m', '400m', '64Mi') }]);
    const after = await n.whileUp('main resized, no resize in progress', async () => {
      const p = await n.pod('resized');
      return statusOf(p, 'main')?.resources?.limits?.['cpu'] === '400m' && !condition(p, 'PodResizeInProgress') ? p : undefined;
    }, 30_000);
    expect(statusOf(after, 'main')).toMatchObject({ restartCount: 0, containerID: statusOf(before, 'main')!.containerID, allocatedResources: { cpu: '200m' } });
    const cgroup = await containerCgroup(after, 'main');
    expect(cgroup.cpuQuota).toBe(40_000);
    expect(after.status?.observedGeneration).toBe(2);
    const events = await n.events({ name: 'resized' });
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['ResizeStarted', 'ResizeCompleted']));
  }, 60_000);

  it('restarts only the container whose memory resizePolicy is RestartContainer', async () => {
    await resize('resized', [{ name: 'restarts', resources: res('100m', '200m', '96Mi') }]);
    const after = await n.whileUp('restarts restarted with 96Mi', async () => {
      const p = await n.pod('resized');
      return statusOf(p, 'restarts')?.restartCount === 1 && statusOf(p, 'restarts')?.resources?.limits?.['memory'] === '96Mi' ? p : undefined;
    }, 60_000);
    expect(statusOf(after, 'main')?.restartCount).toBe(0);
    expect((await containerCgroup(after, 'restarts')).memoryLimitBytes).toBe(96 * 2 ** 20);
  }, 90_000);

  it('shows a resize beyond the node as PodResizePending Infeasible, the container left as it was', async () => {
    await resize('resized', [{ name: 'main', resources: res('1000', '1000', '64Mi') }]);
    const p = await n.whileUp('PodResizePending', async () => {
      const pod = await n.pod('resized');
      return condition(pod, 'PodResizePending') ? pod : undefined;
    }, 30_000);
    expect(condition(p, 'PodResizePending')).toMatchObject({ status: 'True', reason: 'Infeasible', message: expect.stringMatching(/^Node didn't have enough capacity: cpu, requested: 1000100, capacity: \d+$/) });
    expect(statusOf(p, 'main')?.allocatedResources?.['cpu']).toBe('200m');
    // Back to what it runs: the condition goes.
    await resize('resized', [{ name: 'main', resources: res('200m', '400m', '64Mi') }]);
    await n.whileUp('PodResizePending gone', async () => !condition(await n.pod('resized'), 'PodResizePending'), 30_000);
  }, 60_000);

  it('keeps the allocation across a kubelet restart: nothing restarted, the cgroup as resized', async () => {
    await n.restart();
    const p = await n.whileUp('resized Ready after the restart', async () => {
      const pod = await n.pod('resized');
      return condition(pod, 'Ready')?.status === 'True' && statusOf(pod, 'main')?.resources?.limits?.['cpu'] === '400m' ? pod : undefined;
    }, 60_000);
    expect(statusOf(p, 'main')?.restartCount).toBe(0);
    expect((await containerCgroup(p, 'main')).cpuQuota).toBe(40_000);
  }, 120_000);
});
