/**
 * GET /metrics/resource and /metrics/cadvisor from the real binary over real TLS (anonymous,
 * AlwaysAllow, as the other kubelet-server suites), with a running static pod, on the embedded
 * runtime and on containerd (when KUBELET_IT_CRI names one): both parse with the strict exposition
 * reader, carry Go's series names, and the pod's and its container's series are there with
 * plausible values.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { httpsGet, until } from '../support/daemon.js';
import { startServingKubeletWithBusyPod, type ServingKubelet } from '../support/serving-kubelet.js';
import { strictFamilies, type StrictFamily, type StrictSample } from '../support/strict-prometheus-text.js';

const NODE = 'node-metrics';
const POD = `web-${NODE}`;
const RUNTIMES: { name: string; endpoint: string }[] = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

const RESOURCE_SERIES = [
  'node_cpu_usage_seconds_total', 'node_memory_working_set_bytes', 'container_cpu_usage_seconds_total', 'container_memory_working_set_bytes',
  'container_start_time_seconds', 'pod_cpu_usage_seconds_total', 'pod_memory_working_set_bytes', 'scrape_error', 'resource_scrape_error',
];
const CADVISOR_SERIES = [
  'container_cpu_usage_seconds_total', 'container_memory_working_set_bytes', 'container_memory_usage_bytes', 'container_memory_rss',
  'container_start_time_seconds', 'container_last_seen', 'container_scrape_error', 'machine_cpu_cores', 'machine_memory_bytes', 'machine_scrape_error',
];

interface PodList { items: { metadata: { name: string }; status: { containerStatuses?: { name: string; containerID?: string; image: string; state: { running?: { startedAt: string } } }[] } }[] }

const only = (f: StrictFamily | undefined, labels: Record<string, string>): StrictSample => {
  const hits = (f?.samples ?? []).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(hits, `${f?.name ?? 'a missing family'} ${JSON.stringify(labels)}`).toHaveLength(1);
  return hits[0]!;
};

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `/metrics/resource and /metrics/cadvisor on the ${rt.name} runtime`, () => {
  let served: ServingKubelet;
  let port = 0;
  let readOnlyPort = 0;
  const scrape = async (path: string) => {
    const res = await httpsGet(port, path);
    if (res.status !== 200) throw new Error(`${path}: status ${res.status}: ${res.body}`);
    return { text: res.body, families: strictFamilies(res.body) };
  };
  const mainStatus = async () => {
    const list = JSON.parse((await httpsGet(port, '/pods')).body) as PodList;
    return list.items.find((p) => p.metadata.name === POD)?.status.containerStatuses?.find((c) => c.name === 'main');
  };

  beforeAll(async () => {
    served = await startServingKubeletWithBusyPod({ endpoint: rt.endpoint, nodeName: NODE, prefix: 'kts-metrics-' });
    ({ port, readOnlyPort } = served);
    await until('the container in /metrics/resource with CPU measured', async () => {
      const f = (await scrape('/metrics/resource')).families;
      return (f.get('container_cpu_usage_seconds_total')?.samples.find((s) => s.labels.pod === POD)?.value ?? 0) > 0;
    }, 60_000, () => served.kubelet.stderr());
  }, 90_000);

  afterAll(async () => {
    await served?.dispose();
  }, 60_000);

  it('/metrics/resource parses strictly, with Go\'s series and the pod\'s and container\'s plausible values', async () => {
    const { text, families } = await scrape('/metrics/resource');
    // node_swap_usage_bytes only on a node with swap, as in Go.
    expect([...families.keys()].filter((n) => n !== 'node_swap_usage_bytes').sort()).toEqual([...RESOURCE_SERIES].sort());
    expect(text).toMatch(/^scrape_error 0$/m);
    const labels = { container: 'main', pod: POD, namespace: 'default' };
    const cpu = only(families.get('container_cpu_usage_seconds_total'), labels);
    expect(cpu.value).toBeGreaterThan(0);
    // Go stamps each sample with its stats' time: recent, and not in the future.
    expect(cpu.timestampMs).toBeGreaterThan(Date.now() - 60_000);
    expect(cpu.timestampMs).toBeLessThanOrEqual(Date.now());
    expect(only(families.get('container_memory_working_set_bytes'), labels).value).toBeGreaterThan(0);
    expect(only(families.get('pod_cpu_usage_seconds_total'), { pod: POD, namespace: 'default' }).value).toBeGreaterThanOrEqual(cpu.value);
    expect(only(families.get('pod_memory_working_set_bytes'), { pod: POD, namespace: 'default' }).value).toBeGreaterThan(0);
    expect(only(families.get('node_cpu_usage_seconds_total'), {}).value).toBeGreaterThan(0);
    expect(only(families.get('node_memory_working_set_bytes'), {}).value).toBeGreaterThan(0);
    const startedAt = Date.parse((await mainStatus())?.state.running?.startedAt ?? '');
    // The stats' start time is the container's creation, whole seconds; the status's its start.
    expect(Math.abs(only(families.get('container_start_time_seconds'), labels).value * 1000 - startedAt)).toBeLessThanOrEqual(5_000);
  });

  it('/metrics/cadvisor parses strictly, with cAdvisor\'s series and the container labelled by its runtime id and image', async () => {
    const { text, families } = await scrape('/metrics/cadvisor');
    expect([...families.keys()].sort()).toEqual([...CADVISOR_SERIES].sort());
    expect(text).toMatch(/^container_scrape_error 0$/m);
    const status = await mainStatus();
    const labels = { container: 'main', pod: POD, namespace: 'default', id: '', image: status?.image ?? '?', name: (status?.containerID ?? '').replace(/^[a-z0-9-]+:\/\//, '') };
    expect(labels.name).not.toBe('');
    expect(only(families.get('container_cpu_usage_seconds_total'), { ...labels, cpu: 'total' }).value).toBeGreaterThan(0);
    expect(only(families.get('container_memory_working_set_bytes'), labels).value).toBeGreaterThan(0);
    const start = only(families.get('container_start_time_seconds'), labels).value;
    expect(Math.abs(start * 1000 - Date.parse(status?.state.running?.startedAt ?? ''))).toBeLessThanOrEqual(5_000);
    const seen = only(families.get('container_last_seen'), labels);
    expect(Math.abs(seen.value * 1000 - Date.now())).toBeLessThan(30_000);
    expect(only(families.get('container_cpu_usage_seconds_total'), { id: '/', cpu: 'total' }).value).toBeGreaterThan(0);
    expect(only(families.get('machine_cpu_cores'), {}).value).toBeGreaterThanOrEqual(1);
    expect(only(families.get('machine_memory_bytes'), {}).value).toBeGreaterThan(0);
  });

  it('serves both on the read-only port too', async () => {
    for (const path of ['/metrics/resource', '/metrics/cadvisor']) {
      const res = await fetch(`http://127.0.0.1:${readOnlyPort}${path}`);
      expect(res.status).toBe(200);
      expect(strictFamilies(await res.text()).size).toBeGreaterThan(3);
    }
  });
});
