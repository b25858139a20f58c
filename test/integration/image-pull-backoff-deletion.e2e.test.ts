/**
 * A pod whose image cannot be pulled (ErrImagePull, then ImagePullBackOff) and that is deleted with
 * its default grace period goes from the API within seconds, its sandbox stopped at once and removed by
 * the next container GC, as on the Go kubelet. On containerd: a real runtime's pull from a host
 * that does not resolve.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withRuntime } from '../support/daemon.js';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

describeNeeding(allOf(kubeLabPart(), containerdPart()), 'a pod deleted while its image pull backs off, containerd runtime', () => {
  let n: LabNode;

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-pullbackoff', endpoint: containerdEndpoint() });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('goes from the API within seconds, its sandbox stopped, then removed by the container GC', async () => {
    const created = await n.createPod('nopull', {
      terminationGracePeriodSeconds: 30,
      containers: [{ name: 'main', image: 'kubelet-ts.invalid/does-not-exist:1.0', imagePullPolicy: 'Always' }],
    });
    await n.whileUp('nopull in ImagePullBackOff', async () =>
      (await n.pod('nopull'))?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 90_000);
    const started = Date.now();
    expect((await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/nopull`)).status).toBe(200);
    await n.whileUp('nopull gone from the API', async () => (await n.pod('nopull')) === undefined, 20_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    const sandboxes = () => withRuntime({ endpoint: containerdEndpoint(), rootDir: n.dir }, async (cri) =>
      (await cri.runtime.listPodSandbox()).filter((s) => s.metadata.uid === created.metadata.uid));
    // Stopped by the kill, then removed by the container GC's next run (every minute, as Go's).
    expect(await sandboxes()).not.toContainEqual(expect.objectContaining({ state: 'SANDBOX_READY' }));
    await n.whileUp('its sandbox removed', async () => (await sandboxes()).length === 0, 75_000);
  }, 240_000);
});
