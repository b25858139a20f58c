/**
 * The eviction manager end to end in cluster mode on the real control plane (kube-lab.ts), on the
 * embedded runtime and on containerd (KUBELET_IT_CRI):
 * 1. With the default thresholds a BestEffort pod that tolerates the memory-pressure taint and a
 *    Burstable pod well within its memory request run, and the API server's kubelet client reads
 *    their memory in /stats/summary and /metrics/resource (scraped directly: the API server refuses
 *    to proxy to a loopback address).
 * 2. The kubelet restarts with `evictionHard: {memory.available: <MemTotal − 50 Mi>}` (more than
 *    the node has free while more than 50 Mi is in use; not 1Pi: the hard thresholds come off node
 *    allocatable, as in Go, and the re-admitted Burstable pod must still fit): the Node reports
 *    MemoryPressure and the controller-manager taints it; the BestEffort pod (using more than it
 *    requests, 0) is evicted first, Failed with reason Evicted and Go's message as the API server
 *    stores them, with its Evicted event and the node's EvictionThresholdMet; the Burstable one goes
 *    in a later cycle; a new BestEffort pod is refused at admission with "The node had condition:
 *    [MemoryPressure]. ".
 * 3. Restarted with the default thresholds, the Node's MemoryPressure is False again and its taint
 *    gone. (The transition period is the eviction manager's memory and, as in Go, does not outlive a
 *    restart: the machine tests show it holding a condition within one run.)
 */
import { totalmem } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { strictFamilies } from '../support/strict-prometheus-text.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const MAIN = [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }];
const PRESSURE = [`evictionHard: {memory.available: "${Math.floor(totalmem() / 1024) - 50 * 1024}Ki"}`, 'evictionPressureTransitionPeriod: 5s'];
const RELAXED = ['evictionPressureTransitionPeriod: 5s'];
const TAINT = 'node.kubernetes.io/memory-pressure';

interface SummaryPod { podRef: { name: string; namespace: string; uid: string }; memory?: { workingSetBytes?: number } }

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `eviction on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  const memoryPressure = async () => (await n.nodeObject()).status?.conditions?.find((c) => c.type === 'MemoryPressure');
  const tainted = async () => ((await n.nodeObject()).spec.taints ?? []).some((t) => t.key === TAINT && t.effect === 'NoSchedule');
  const failed = (name: string, ms: number) => n.whileUp(`${name} Failed`, async () => {
    const p = await n.pod(name);
    return p?.status?.phase === 'Failed' ? p : undefined;
  }, ms);
  const uids: Record<string, string> = {};

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-ev-${rt.name}`, endpoint: rt.endpoint, extraConfig: () => RELAXED });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('runs a tolerating BestEffort pod and a Burstable pod while no threshold is met; its summary and resource metrics show them', async () => {
    await n.whileUp('Node MemoryPressure False', async () => (await memoryPressure())?.status === 'False', 60_000);
    for (const [name, spec] of [
      ['be', { tolerations: [{ key: TAINT, operator: 'Exists', effect: 'NoSchedule' }], containers: MAIN }],
      ['burst', { containers: [{ ...MAIN[0], resources: { requests: { memory: '20Mi' } } }] }],
    ] as const) uids[name] = (await n.createPod(name, spec)).metadata.uid;
    for (const name of ['be', 'burst']) await n.whileUp(`${name} Running`, async () => (await n.pod(name))?.status?.phase === 'Running', 60_000);

    const pods = await n.whileUp('both pods\' memory in /stats/summary', async () => {
      const res = await n.kubeletGet('/stats/summary');
      if (res.status !== 200) throw new Error(`/stats/summary: ${res.status} ${res.body}`);
      const mine = (JSON.parse(res.body) as { pods: SummaryPod[] }).pods.filter((p) => p.podRef.namespace === n.ns);
      return mine.length === 2 && mine.every((p) => (p.memory?.workingSetBytes ?? 0) > 0) ? mine : undefined;
    }, 30_000);
    expect(pods.map((p) => [p.podRef.name, p.podRef.uid]).sort()).toEqual([['be', uids.be], ['burst', uids.burst]]);
    const metrics = await n.kubeletGet('/metrics/resource');
    expect(metrics.status).toBe(200);
    const workingSet = strictFamilies(metrics.body).get('pod_memory_working_set_bytes')?.samples.filter((s) => s.labels.namespace === n.ns) ?? [];
    expect(workingSet.map((s) => s.labels.pod).sort()).toEqual(['be', 'burst']);
  }, 120_000);

  it('reports MemoryPressure within a monitoring period of the restart with evictionHard memory.available above what is free; the controller-manager taints the Node', async () => {
    const restartedAt = Date.now();
    await n.restart(PRESSURE);
    const condition = await n.whileUp('Node MemoryPressure True', async () => {
      const c = await memoryPressure();
      return c?.status === 'True' ? c : undefined;
    }, 60_000);
    expect(condition).toMatchObject({ reason: 'KubeletHasInsufficientMemory', message: 'kubelet has insufficient memory available' });
    process.stderr.write(`eviction e2e (${rt.name}): MemoryPressure True ${Date.now() - restartedAt} ms after the restart\n`);
    await n.whileUp(`the ${TAINT} taint`, tainted, 30_000);
  }, 90_000);

  it('evicts the BestEffort pod first: Failed, reason Evicted, Go\'s message, the Evicted and EvictionThresholdMet events', async () => {
    const be: LabPod = await failed('be', 60_000);
    expect(be.status?.reason).toBe('Evicted');
    process.stderr.write(`eviction e2e (${rt.name}): be evicted: ${be.status?.message}\n`);
    expect(be.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'TerminationByKubelet', message: be.status?.message });
    // Go names a container only when it uses more than it requests (0 here). containerd's working set
    // of an idle shell (usage minus inactive file pages) is sometimes 0; the embedded runtime's is not.
    const containerPart = rt.name === 'embedded' ? '' : '?';
    expect(be.status?.message).toMatch(new RegExp(`^The node was low on resource: memory\\. Threshold quantity: \\d+(Ki|Mi|Gi)?, available: \\d+(Ki|Mi|Gi)?\\. (Container main was using \\d+(Ki|Mi)?, request is 0, has larger consumption of memory\\. )${containerPart}$`));
    const evicted = await n.whileUp('the Evicted event of be', async () => (await n.events({ uid: uids.be! })).find((e) => e.reason === 'Evicted'), 30_000);
    expect(evicted).toMatchObject({ type: 'Warning', message: be.status?.message, involvedObject: { kind: 'Pod', name: 'be' }, source: { component: 'kubelet', host: n.node } });
    const met = await n.whileUp('EvictionThresholdMet', async () => (await n.events({ kind: 'Node', name: n.node }, 'default')).find((e) => e.reason === 'EvictionThresholdMet'), 30_000);
    expect(met).toMatchObject({ type: 'Warning', message: 'Attempting to reclaim memory', involvedObject: { kind: 'Node', name: n.node } });
  }, 90_000);

  it('refuses a new BestEffort pod at admission: Failed, reason Evicted, "The node had condition: [MemoryPressure]. "', async () => {
    await n.createPod('late', { containers: MAIN });
    const late = await failed('late', 30_000);
    expect(late.status).toMatchObject({ reason: 'Evicted', message: 'Pod was rejected: The node had condition: [MemoryPressure]. ' });
  }, 60_000);

  it('evicts the Burstable pod in a later cycle, after the BestEffort one', async () => {
    const burst = await failed('burst', 60_000);
    expect(burst.status?.reason).toBe('Evicted');
    const firstEvicted = async (uid: string) => (await n.events({ uid })).find((e) => e.reason === 'Evicted')?.firstTimestamp ?? '';
    const burstAt = await n.whileUp('the Evicted event of burst', () => firstEvicted(uids.burst!), 30_000);
    // A later monitoring cycle (10 s): a later second, in the events' whole-second times.
    expect(Date.parse(burstAt)).toBeGreaterThan(Date.parse(await firstEvicted(uids.be!)));
  }, 90_000);

  it('reports MemoryPressure False again once restarted with the default thresholds, and the taint goes', async () => {
    await n.restart(RELAXED);
    await n.whileUp('Node MemoryPressure False', async () => (await memoryPressure())?.status === 'False', 60_000);
    await n.whileUp(`the ${TAINT} taint gone`, async () => !(await tainted()), 30_000);
  }, 120_000);
});
