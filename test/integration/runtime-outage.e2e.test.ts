/**
 * A runtime outage as the Go kubelet rides it, on the real control plane (kube-lab.ts): containerd
 * stopped while the kubelet runs in cluster mode, down through two failed Status checks (5–10 s),
 * then started again. The real Node must stay Ready throughout, as a watch on it sees every update
 * (Go calls the runtime down only after 30 s without a good Status), and a pod created right after
 * containerd is back must run at its first sync: none of its syncs fails, so its worker never waits
 * out the 10 s back-off. How soon it runs is printed, a figure, not asserted.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { startContainerd, stopContainerd } from '../support/containerd-lab.js';
import { kubeLabPart, labWatch } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabNodeObject, type LabPod } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const readyOf = (o: LabNodeObject | undefined) => o?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describeNeeding(allOf(kubeLabPart(), containerdPart()), 'a 10 s containerd outage in cluster mode on the real control plane', () => {
  let n: LabNode;
  const lab = process.env.KUBELET_IT_CRI_LAB ?? '';
  const socket = containerdEndpoint().replace(/^unix:\/\//, '');

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-outage', endpoint: containerdEndpoint() });
    await n.whileUp('the Node Ready', async () => readyOf(await n.nodeObject().catch(() => undefined)) === 'True', 60_000);
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('keeps the Node Ready, and runs a pod created after the return at its first sync', async () => {
    const readiness: string[] = [];
    const watch = labWatch<LabNodeObject>(n.lab, `/api/v1/nodes?fieldSelector=metadata.name%3D${n.node}`, (e) => readiness.push(readyOf(e.object) ?? '?'));
    const journal = () => readJournal(join(n.dir, 'root', 'events', 'latest.jsonl')).records;
    const failedChecks = () => journal()
      .filter((r) => r.name === 'xstate.done.actor.checkRuntime' && (r.payload as { output?: { ok?: boolean } }).output?.ok === false).length;
    try {
      await stopContainerd(lab);
      // Down until the kubelet has seen two Status calls fail (its checks run every 5 s).
      await n.whileUp('two failed runtime checks', () => failedChecks() >= 2, 30_000);
      await startContainerd(lab, socket);
      const back = Date.now();
      // Timed by a watch, not by polling: the pod's Running is seen as the API server stores it.
      let runningAt = 0;
      const podWatch = labWatch<LabPod>(n.lab, `/api/v1/namespaces/${n.ns}/pods?fieldSelector=metadata.name%3Dafter`, (e) => {
        if (!runningAt && e.object.status?.phase === 'Running') runningAt = Date.now();
      });
      // No token volume (the ServiceAccount admission's): what is timed is the runtime's return, not a TokenRequest.
      const after = await n.createPod('after', { automountServiceAccountToken: false, containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
      await n.whileUp('the pod created after the return Running', () => runningAt > 0, 30_000).finally(() => podWatch.stop());
      const runningAfterMs = runningAt - back;
      // Its syncs as the journal holds them (written a moment after they end: waited for).
      const worker = `pod:${after.metadata.uid}`;
      const ofWorker = () => journal().filter((r) => r.actor === worker);
      const syncs = () => ofWorker().filter((r) => r.name === 'xstate.done.actor.syncPod').map((r) => (r.payload as { output?: { ok?: boolean } }).output?.ok);
      await n.whileUp('the pod\'s sync in the journal', () => syncs().length > 0, 30_000);

      process.stderr.write(`runtime outage: Node Ready throughout (${readiness.length} node updates), pod Running ${runningAfterMs} ms after containerd returned\n`);
      // The Node is patched only on a change (the Lease says the node is alive): none may be NotReady,
      // the kubelet must never have called its runtime anything but ready, and the Node ends Ready.
      expect(readiness.length).toBeGreaterThan(0);
      expect(readiness.filter((r) => r !== 'True')).toEqual([]);
      const healthChanges = journal().filter((r) => r.type === 'event' && r.name === 'runtime.health.changed').map((r) => (r.payload as { health: string }).health);
      expect(healthChanges).toEqual(['ready']);
      expect(readyOf(await n.nodeObject())).toBe('True');
      // Running at its first sync: no call of it failed on a connection still backing off.
      expect(syncs().filter((ok) => ok !== true)).toEqual([]);
      expect(ofWorker().filter((r) => r.type === 'state').map((r) => (r.payload as { value: unknown }).value)).not.toContain('backingOff');
    } finally {
      watch.stop();
    }
  }, 120_000);
});
