/**
 * Pod fields a v1.35 control plane sends, on the real one:
 * - observedGeneration (PodObservedGenerationTracking is GA): the API server counts each change of
 *   a pod's spec in metadata.generation, and the kubelet says in every status it writes which
 *   generation it has acted on, on the status and on each condition it owns, as the Go kubelet
 *   v1.35 does. A controller waits on these to know a change was seen.
 * - crashLoopBackOff.maxContainerRestartPeriod caps the crash-loop back-off (KubeletCrashLoopBackOffMax);
 * - a dynamic resource claim that is not reserved for the pod (no scheduler took it): the pod is
 *   admitted but nothing of it starts, Go's FailedPrepareDynamicResources event says why, and its
 *   status reaches the API server although the claim controller wrote the pod's
 *   resourceClaimStatuses, which a node may not touch.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { describeNeeding } from '../support/real-parts.js';

const KUBELET_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

describeNeeding(kubeLabPart(), 'v1.35 pod fields on the real control plane, embedded runtime', () => {
  let n: LabNode;
  const generations = (pod: LabPod | undefined) => ({
    generation: pod?.metadata?.generation,
    observed: pod?.status?.observedGeneration,
    conditions: Object.fromEntries((pod?.status?.conditions ?? []).filter((c) => KUBELET_CONDITIONS.includes(c.type)).map((c) => [c.type, c.observedGeneration])),
  });
  const allAt = (generation: number) => ({ generation, observed: generation, conditions: Object.fromEntries(KUBELET_CONDITIONS.map((t) => [t, generation])) });

  beforeAll(async () => {
    // A crash-loop back-off capped at 1 s (KubeletCrashLoopBackOffMax, on in v1.35).
    n = await startLabNode({ name: 'kts-generation', endpoint: 'embedded', extraConfig: () => ['crashLoopBackOff:', '  maxContainerRestartPeriod: 1s'] });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('writes the pod\'s generation on its status and on each condition it owns', async () => {
    await n.createPod('counted', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    const pod = await n.whileUp('counted Running', async () => {
      const p = await n.pod('counted');
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 60_000);
    expect(generations(pod)).toEqual(allAt(1));
  }, 90_000);

  it('follows a change of the spec with the new generation, the pod still running', async () => {
    const res = await labApi(n.lab, 'PATCH', `/api/v1/namespaces/${n.ns}/pods/counted`, { spec: { activeDeadlineSeconds: 3600 } }, 'application/strategic-merge-patch+json');
    expect(res.status).toBe(200);
    const pod = await n.whileUp('observedGeneration 2', async () => {
      const p = await n.pod('counted');
      return p?.status?.observedGeneration === 2 ? p : undefined;
    }, 20_000);
    expect(generations(pod)).toEqual(allAt(2));
    expect(pod.status?.phase).toBe('Running');
    expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  }, 30_000);

  it('admits a pod with a resource claim and starts nothing while the claim is not reserved for it: Go\'s FailedPrepareDynamicResources event, its Pending status reaching the API server beside the claim statuses', async () => {
    await n.create(`/apis/resource.k8s.io/v1/namespaces/${n.ns}/resourceclaimtemplates`, {
      metadata: { name: 'gpu' },
      spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } } },
    });
    // Unbound at first (no scheduler takes it), so the claim controller writes its claim statuses
    // before the kubelet sees it; then bound to this node as the scheduler would bind it.
    await n.create(`/api/v1/namespaces/${n.ns}/pods`, {
      metadata: { name: 'claiming' },
      spec: {
        schedulerName: 'nobody', terminationGracePeriodSeconds: 1,
        resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu' }],
        containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP], resources: { claims: [{ name: 'gpu' }] } }],
      },
    });
    const claimStatuses = await n.whileUp('the claim controller\'s resourceClaimStatuses', async () => (await n.pod('claiming'))?.status?.resourceClaimStatuses, 30_000);
    await n.create(`/api/v1/namespaces/${n.ns}/pods/claiming/binding`, { metadata: { name: 'claiming' }, target: { kind: 'Node', name: n.node } });
    const event = await n.whileUp('the FailedPrepareDynamicResources event', async () => (await n.events({ name: 'claiming' })).find((e) => e.reason === 'FailedPrepareDynamicResources'), 30_000);
    expect(event).toMatchObject({
      type: 'Warning',
      message: expect.stringMatching(/^Failed to prepare dynamic resources: pod claiming \([0-9a-f-]{36}\) is not allowed to use ResourceClaim claiming-gpu-[a-z0-9]+ \([0-9a-f-]{36}\)$/),
    });
    // The kubelet's status (its container waiting to be created) is taken beside the claim controller's fields.
    const pod = await n.whileUp('claiming ContainerCreating', async () => {
      const p = await n.pod('claiming');
      return p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating' ? p : undefined;
    }, 30_000);
    expect(pod.status).toMatchObject({ phase: 'Pending', observedGeneration: 1 });
    expect(pod.status?.resourceClaimStatuses).toEqual(claimStatuses);
  }, 60_000);

  it('restarts a crashing container within the configured crash-loop back-off cap, not the default 10 s doubling', async () => {
    await n.createPod('crashing', { restartPolicy: 'Always', containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'exit 3'] }] });
    // The default (10 s, 20 s, 40 s…) gives at most 2 restarts in 25 s; a 1 s cap gives many.
    const status = await n.whileUp('5 restarts', async () => {
      const c = (await n.pod('crashing'))?.status?.containerStatuses?.[0];
      return c !== undefined && (c.restartCount ?? 0) >= 5 ? c : undefined;
    }, 25_000);
    expect(status.restartCount).toBeGreaterThanOrEqual(5);
  }, 40_000);
});
