/**
 * observedGeneration on the real control plane (v1.35, where PodObservedGenerationTracking is GA):
 * the API server counts each change of a pod's spec in metadata.generation, and the kubelet says
 * in every status it writes which generation it has acted on, on the status and on each condition
 * it owns, as the Go kubelet v1.35 does. A controller waits on these to know a change was seen.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { describeNeeding } from '../support/real-parts.js';

const KUBELET_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

describeNeeding(kubeLabPart(), 'observedGeneration on the real control plane, embedded runtime', () => {
  let n: LabNode;
  const generations = (pod: LabPod | undefined) => ({
    generation: pod?.metadata?.generation,
    observed: pod?.status?.observedGeneration,
    conditions: Object.fromEntries((pod?.status?.conditions ?? []).filter((c) => KUBELET_CONDITIONS.includes(c.type)).map((c) => [c.type, c.observedGeneration])),
  });
  const allAt = (generation: number) => ({ generation, observed: generation, conditions: Object.fromEntries(KUBELET_CONDITIONS.map((t) => [t, generation])) });

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-generation', endpoint: 'embedded' });
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
});
