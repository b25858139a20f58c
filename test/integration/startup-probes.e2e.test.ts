/**
 * Probe hand-offs on the real control plane (kube-lab.ts) and containerd, as the upstream "[sig-node]
 * Probing container" specs drive them: once a container's startup probe succeeds its readiness
 * probe runs at once (Ready follows within seconds, not at the readiness probe's next period), and
 * its liveness probe starts judging it, so a failing one restarts it; while a pod terminates its
 * readiness probe keeps running, so the pod turns not Ready before its containers stop.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();
const exec = (...command: string[]) => ({ exec: { command } });

describeNeeding(kubeLabPartFor(endpoint), 'probe hand-offs on the real control plane, containerd runtime', () => {
  let n: LabNode;
  const ready = (pod: LabPod | undefined) => pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const container = (pod: LabPod | undefined) => pod?.status?.containerStatuses?.[0] as ({ started?: boolean; restartCount?: number } | undefined);

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-probes', endpoint });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('is Ready within seconds of its startup probe succeeding, though its readiness probe runs every 30 s', async () => {
    await n.createPod('ready-after-startup', {
      containers: [{
        name: 'main', image: BUSYBOX,
        // The startup probe succeeds only after 5 s, so the liveness probe must wait for it; the test waits on the pod's status.
        command: ['sh', '-c', `echo ok >/tmp/health; sleep 5; echo ok >/tmp/startup; ${SLEEP}`],
        readinessProbe: { ...exec('cat', '/tmp/health'), periodSeconds: 30 },
        startupProbe: { ...exec('cat', '/tmp/startup'), periodSeconds: 1, failureThreshold: 60 },
      }],
    });
    const before = await n.whileUp('ready-after-startup running, not started', async () => {
      const p = await n.pod('ready-after-startup');
      return p?.status?.phase === 'Running' && container(p)?.started === false ? p : undefined;
    }, 60_000);
    expect(ready(before)).toBe('False');
    await n.whileUp('ready-after-startup started', async () => container(await n.pod('ready-after-startup'))?.started === true, 30_000);
    const startedAt = Date.now();
    const after = await n.whileUp('ready-after-startup Ready', async () => {
      const p = await n.pod('ready-after-startup');
      return ready(p) === 'True' ? p : undefined;
    }, 40_000);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(container(after)?.restartCount).toBe(0);
  }, 150_000);

  it('is restarted by its failing liveness probe once its startup probe succeeded', async () => {
    await n.createPod('live-after-startup', {
      containers: [{
        name: 'main', image: BUSYBOX,
        // The startup probe succeeds after 3 s; the test waits on the restart it leads to, not on this.
        command: ['sh', '-c', `sleep 3; echo ok >/tmp/startup; ${SLEEP}`],
        livenessProbe: { ...exec('cat', '/tmp/liveness'), periodSeconds: 1, failureThreshold: 1 },
        startupProbe: { ...exec('cat', '/tmp/startup'), periodSeconds: 1, failureThreshold: 60 },
      }],
    });
    const restarted = await n.whileUp('live-after-startup restarted', async () => {
      const p = await n.pod('live-after-startup');
      return (container(p)?.restartCount ?? 0) >= 1 ? p : undefined;
    }, 90_000);
    expect(container(restarted)?.restartCount).toBeGreaterThanOrEqual(1);
    const unhealthy = await n.whileUp('the liveness failure recorded', async () =>
      (await n.events({ name: 'live-after-startup' })).find((e) => e.reason === 'Unhealthy' && e.message?.startsWith('Liveness probe failed: ')), 20_000);
    expect(unhealthy.message).toMatch(/\/tmp\/liveness/);
  }, 120_000);

  it('turns not Ready while it terminates, its readiness probe failing during the grace period', async () => {
    await n.createPod('ready-terminating', {
      terminationGracePeriodSeconds: 60,
      containers: [{
        name: 'main', image: BUSYBOX,
        // On SIGTERM it stops being ready and takes 40 s to go.
        command: ['sh', '-c', `touch /tmp/ready; trap 'rm -f /tmp/ready; sleep 40; exit 0' TERM; while :; do sleep 1 & wait $!; done`],
        readinessProbe: { ...exec('cat', '/tmp/ready'), periodSeconds: 1, failureThreshold: 1 },
      }],
    });
    await n.whileUp('ready-terminating Ready', async () => ready(await n.pod('ready-terminating')) === 'True', 60_000);
    expect((await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/ready-terminating`)).status).toBe(200);
    const deletedAt = Date.now();
    const terminating = await n.whileUp('ready-terminating not Ready while terminating', async () => {
      const p = await n.pod('ready-terminating');
      return p?.metadata.deletionTimestamp && ready(p) === 'False' ? p : undefined;
    }, 30_000);
    expect(Date.now() - deletedAt).toBeLessThan(20_000);
    // Its container still runs: the probe, not the container's end, turned it not Ready.
    expect(terminating.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
  }, 120_000);
});
