/**
 * GET /stats/summary from the real binary over real TLS, with a running static pod, on the embedded
 * runtime and on containerd (when KUBELET_IT_CRI names one; in CI it must): the body parses as the
 * Go Summary type, and the pod and its container are there with memory and CPU measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { httpsGet, until } from '../support/daemon.js';
import { startServingKubeletWithBusyPod, type ServingKubelet } from '../support/serving-kubelet.js';
import { summaryShapeProblems } from '../support/summary-shape.js';

const NODE = 'node-stats';
const RUNTIMES: { name: string; endpoint: string }[] = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

interface SummaryBody {
  node: { nodeName: string; cpu?: { usageCoreNanoSeconds?: number }; memory?: { workingSetBytes?: number }; fs?: { capacityBytes?: number } };
  pods: { podRef: { name: string; namespace: string; uid: string }; containers: { name: string; cpu?: { usageCoreNanoSeconds?: number; usageNanoCores?: number }; memory?: { workingSetBytes?: number } }[] }[];
}

describe('the shape check', () => {
  it('finds a missing field, a wrong type and an unknown field', () => {
    expect(summaryShapeProblems({ node: { nodeName: 'n', startTime: '2024-01-01T00:00:00Z' }, pods: [] })).toEqual([]);
    expect(summaryShapeProblems({ node: { startTime: 'yesterday', cpu: { time: '2024-01-01T00:00:00Z', usageNanoCores: '1' } }, pods: [], extra: 1 })).toEqual([
      'summary.node.nodeName: missing',
      'summary.node.startTime: want an RFC 3339 time, got "yesterday"',
      'summary.node.cpu.usageNanoCores: want an unsigned integer, got "1"',
      'summary.extra: not a field of the Go type',
    ]);
  });
});

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `/stats/summary on the ${rt.name} runtime`, () => {
  let served: ServingKubelet;
  let port = 0;
  let readOnlyPort = 0;
  const summary = async (query = '') => {
    const res = await httpsGet(port, `/stats/summary${query}`);
    if (res.status !== 200) throw new Error(`status ${res.status}: ${res.body}`);
    return { raw: JSON.parse(res.body) as unknown, body: JSON.parse(res.body) as SummaryBody };
  };
  const web = (s: SummaryBody) => s.pods.find((p) => p.podRef.name === `web-${NODE}`);

  beforeAll(async () => {
    served = await startServingKubeletWithBusyPod({ endpoint: rt.endpoint, nodeName: NODE, prefix: 'kts-stats-' });
    ({ port, readOnlyPort } = served);
    await until('the pod in the summary with CPU measured', async () => {
      const c = web((await summary()).body)?.containers[0];
      return (c?.cpu?.usageCoreNanoSeconds ?? 0) > 0;
    }, 60_000, () => served.kubelet.stderr());
  }, 90_000);

  afterAll(async () => {
    await served?.dispose();
  }, 60_000);

  it('parses as the Go Summary type, with the running pod, its container, memory and CPU', async () => {
    const { raw, body } = await summary();
    expect(summaryShapeProblems(raw)).toEqual([]);
    expect(body.node.nodeName).toBe(NODE);
    expect(body.node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(body.node.memory?.workingSetBytes).toBeGreaterThan(0);
    expect(body.node.fs?.capacityBytes).toBeGreaterThan(0);
    const pod = web(body);
    expect(pod?.podRef.namespace).toBe('default');
    const main = pod?.containers.find((c) => c.name === 'main');
    expect(main?.memory?.workingSetBytes).toBeGreaterThan(0);
    expect(main?.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  });

  it('gives usageNanoCores once a second sample exists', async () => {
    await until('usageNanoCores of the container', async () => web((await summary()).body)?.containers[0]?.cpu?.usageNanoCores !== undefined, 20_000, () => served.kubelet.stderr());
  }, 30_000);

  it('with only_cpu_and_memory=true, still the Go type, without file systems; on the read-only port too', async () => {
    const { raw } = await summary('?only_cpu_and_memory=true');
    expect(summaryShapeProblems(raw)).toEqual([]);
    expect((raw as { node: object }).node).not.toHaveProperty('fs');
    const ro = await fetch(`http://127.0.0.1:${readOnlyPort}/stats/summary`);
    expect(ro.status).toBe(200);
    expect(summaryShapeProblems(await ro.json())).toEqual([]);
    expect((await httpsGet(port, '/stats/summary?only_cpu_and_memory=maybe')).status).toBe(400);
  });
});
