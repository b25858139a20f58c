/**
 * The kubelet's own Node, live, on the real control plane (kube-lab.ts), on the embedded runtime and
 * on containerd (KUBELET_IT_CRI): `kubectl label node N zone=a`, then a pod with
 * `nodeSelector: {zone: a}` that the real scheduler binds runs on the node without a restart of the
 * kubelet; a pod bound by hand to a zone the Node does not have is still refused (NodeAffinity, after
 * the kubelet read the Node again); a label removed is seen too; the pod CIDR set on the Node
 * reaches the runtime (UpdateRuntimeConfig: the embedded runtime's verbose Status shows it, and the
 * journal has the runtime's answer on both); and the journal replays identically.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { runKubeletCommand } from '../support/kubelet-bin.js';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const main = [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }];
const POD_CIDR = '10.250.7.0/24';

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `the kubelet's own Node, live, on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let pid: number | undefined;
  const kubectl = async (...args: string[]) => {
    const r = await runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, args);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  /** A pod for the scheduler to place (no spec.nodeName). */
  const schedule = (name: string, spec: Record<string, unknown>) =>
    n.create(`/api/v1/namespaces/${n.ns}/pods`, { metadata: { name }, spec: { terminationGracePeriodSeconds: 1, containers: main, ...spec } });
  const journal = () => readFileSync(join(n.dir, 'root', 'events', 'latest.jsonl'), 'utf8');

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-ln-${rt.name}`, endpoint: rt.endpoint });
    await n.whileUp('the Node Ready', async () => (await n.nodeObject().catch(() => undefined))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 60_000);
    pid = n.kubelet().child.pid;
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('runs a pod selecting a label added with kubectl label node, placed by the scheduler, without a restart', async () => {
    await kubectl('label', 'node', n.node, 'zone=a');
    await schedule('zoned', { nodeSelector: { zone: 'a' } });
    const pod = await n.whileUp('zoned Running', async () => {
      const p = await n.pod('zoned');
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 60_000);
    expect(pod.spec.nodeName).toBe(n.node);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', ready: true, restartCount: 0 });
    expect(n.kubelet().child.pid).toBe(pid);
    expect(n.kubelet().child.exitCode).toBeNull();
  }, 90_000);

  it('still refuses a pod bound to it whose zone the Node does not have, after reading the Node again', async () => {
    const created = await n.createPod('elsewhere', { nodeSelector: { zone: 'b' }, containers: main });
    const pod = await n.whileUp('elsewhere Failed', async () => {
      const p = await n.pod('elsewhere');
      return p?.status?.phase === 'Failed' ? p : undefined;
    }, 30_000);
    expect(pod.status).toMatchObject({ reason: 'NodeAffinity', message: "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" });
    expect(pod.metadata.uid).toBe(created.metadata.uid);
    // The read asked for, and answered, in the journal: the refusal came after it.
    await n.whileUp('the refresh in the journal', () => journal().includes('"name":"node.refresh.answered"'), 10_000);
  }, 40_000);

  it('sees a label removed: a pod bound to it selecting the old one is refused', async () => {
    await kubectl('label', 'node', n.node, 'zone-');
    // Once the kubelet has heard of it (one event in its journal, not a heartbeat's worth), the pod comes.
    // Read as records: the delivery's line may refer to the send that carried the Node.
    const changes = () => readJournal(join(n.dir, 'root', 'events', 'latest.jsonl')).records.filter((r) => r.name === 'node.object.changed');
    await n.whileUp('the label removal in the journal', () => changes().map((r) => JSON.stringify(r.payload)).at(-1)?.includes('"zone":') === false, 15_000);
    await n.createPod('stale', { nodeSelector: { zone: 'a' }, containers: main });
    const pod = await n.whileUp('stale Failed', async () => {
      const p = await n.pod('stale');
      return p?.status?.phase === 'Failed' ? p : undefined;
    }, 30_000);
    expect(pod.status?.reason).toBe('NodeAffinity');
    // The pod placed while the label was there keeps running (admission is at admission only).
    expect((await n.pod('zoned'))?.status?.phase).toBe('Running');
  }, 50_000);

  it('journals the Node only when its labels, taints or pod CIDR changed, not for its status writes', async () => {
    type Observed = { payload: { node: { labels: object; taints: object[]; podCIDR: string } } };
    const records = journal().split('\n').filter((l) => l.includes('"name":"node.object.observed"')).map((l) => JSON.parse(l) as Observed);
    const seen = records.map((r) => JSON.stringify([Object.entries(r.payload.node.labels).sort(), r.payload.node.taints, r.payload.node.podCIDR]));
    // Registered, labelled, unlabelled (and the node lifecycle controller's taints): each one a change.
    expect(records.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i], `record ${i} repeats the one before`).not.toBe(seen[i - 1]);
    const statusWrites = journal().split('\n').filter((l) => l.includes('"name":"xstate.done.actor.patchNodeStatus"')).length;
    expect(statusWrites).toBeGreaterThan(0);
  });

  it('gives the runtime the pod CIDR set on its Node (UpdateRuntimeConfig)', async () => {
    await kubectl('patch', 'node', n.node, '-p', JSON.stringify({ spec: { podCIDR: POD_CIDR, podCIDRs: [POD_CIDR] } }));
    await n.whileUp('the runtime\'s answer in the journal', () =>
      journal().split('\n').some((l) => l.includes('"name":"xstate.done.actor.updatePodCIDR"') && l.includes('"ok":true') && l.includes(POD_CIDR)), 30_000);
    if (rt.endpoint !== 'embedded') return;
    const cri = createCriClient({ endpoint: `unix://${join(n.dir, 'root', 'embedded-runtime', 'cri.sock')}` });
    try {
      const { info } = await cri.runtime.status(true);
      expect(JSON.parse(info.config ?? '{}')).toMatchObject({ podCIDR: POD_CIDR });
    } finally {
      cri.close();
    }
  }, 40_000);

  it('stops cleanly and leaves a journal that replays identically, the Node\'s changes included', async () => {
    expect(await n.stop()).toBe(0);
    const r = runKubeletCommand('replay', [join(n.dir, 'root', 'events', 'latest.jsonl')]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 120_000);
});
