/**
 * Local storage isolation end to end in cluster mode on the real control plane (kube-lab.ts), with
 * the default thresholds (no pressure): a pod is evicted for its own local storage limits alone.
 * - Both runtimes: a pod writing 4 MiB into an emptyDir whose sizeLimit is 1Mi is Failed, reason
 *   Evicted, with Go's message and its Evicted event, and no DisruptionTarget condition (Go adds
 *   none for these); a pod well within the same limit keeps running.
 * - containerd: a container writing 10 MiB into its own rootfs under a 5Mi ephemeral-storage limit
 *   (the upstream spec "evicted pods should be terminal") is evicted on the pod's total, the first
 *   check that sees it. The embedded runtime runs host processes: a container has no rootfs of its own.
 * volumeStatsAggPeriod is 5 s so the emptyDir is measured within a cycle or two (Go's default, 1 min,
 * is why the upstream spec waits up to 10 min).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

const scratchPod = (megabytes: number) => ({
  volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }],
  containers: [{
    name: 'main', image: BUSYBOX, volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
    command: ['sh', '-c', `dd if=/dev/zero of=/scratch/fill bs=1048576 count=${megabytes} && ${SLEEP}`],
  }],
});

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `local storage eviction on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  const ended = (name: string, ms: number) => n.whileUp(`${name} Failed`, async () => {
    const p = await n.pod(name);
    return p?.status?.phase === 'Failed' ? p : undefined;
  }, ms);

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-lse-${rt.name}`, endpoint: rt.endpoint, extraConfig: () => ['volumeStatsAggPeriod: 5s'] });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('evicts a pod whose emptyDir holds more than its sizeLimit, with Go\'s message and event and no DisruptionTarget; one within it runs on', async () => {
    const full = await n.createPod('full', scratchPod(4));
    await n.createPod('within', scratchPod(0));
    const evicted: LabPod = await ended('full', 90_000);
    expect(evicted.status).toMatchObject({ reason: 'Evicted', message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' });
    expect(evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toBeUndefined();
    const event = await n.whileUp('the Evicted event', async () => (await n.events({ uid: full.metadata.uid })).find((e) => e.reason === 'Evicted'), 30_000);
    expect(event).toMatchObject({ type: 'Warning', message: evicted.status?.message, involvedObject: { kind: 'Pod', name: 'full' } });
    expect((await n.pod('within'))?.status?.phase).toBe('Running');
  }, 150_000);

  if (rt.name === 'containerd') {
    it('evicts a pod whose container writes past its ephemeral-storage limit into its own rootfs (the upstream "evicted pods should be terminal")', async () => {
      await n.createPod('rootfs', {
        restartPolicy: 'OnFailure',
        containers: [{
          name: 'bar', image: BUSYBOX, resources: { limits: { 'ephemeral-storage': '5Mi' } },
          command: ['sh', '-c', `dd if=/dev/zero of=/fill bs=1048576 count=10 && ${SLEEP}`],
        }],
      });
      const evicted = await ended('rootfs', 120_000);
      expect(evicted.status).toMatchObject({ reason: 'Evicted', message: 'Pod ephemeral local storage usage exceeds the total limit of containers 5Mi. ' });
    }, 180_000);
  }
});
