/**
 * What the API client's transport costs in CPU (`npm run bench -- apiclient`), HTTP/2 against
 * HTTP/1.1, in this process on the real control plane (../shared/lab/kube, v1.26): each round a new
 * client (its connections and handshakes included) sends a burst's worth of API traffic, 30 pods
 * each creating two Events, patching its status once and reading its namespace, 8 at a time as
 * the pod workers do, beside two open watches; rounds of the two transports alternate. Prints the
 * median CPU (user + system) of a round for each, their ratio, and the connections a new client opened; then
 * the same on clients kept from round to round (warm: no handshakes, as in a long-running kubelet).
 * KUBELET_BENCH_APICLIENT_ROUNDS=N (8) rounds of each.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { h2SettingsFromEnv } from '../src/adapters/apiserver/h2-session.js';
import { readKubeconfig } from '../src/adapters/apiserver/kubeconfig-file.js';
import { RestClient } from '../src/adapters/apiserver/rest-client.js';
import { controlPlaneMissing, kubeLabScripts, purgeKubeLab } from '../test/support/kube-lab-scripts.js';
import { upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { median, round } from './stats.js';

const ROUNDS = Number(process.env.KUBELET_BENCH_APICLIENT_ROUNDS ?? 8);
const PODS = 30;
const IN_FLIGHT = 8;

export async function benchApiClient(): Promise<Record<string, number | string>> {
  const scripts = kubeLabScripts();
  const unavailable = controlPlaneMissing(scripts);
  if (unavailable) return { skipped: unavailable };
  const work = mkdtempSync(join(tmpdir(), 'kts-apiclient-'));
  const labDir = join(work, 'lab');
  mkdirSync(labDir);
  const cpu = { h2: [] as number[], 'http/1.1': [] as number[] };
  const warmCpu = { h2: [] as number[], 'http/1.1': [] as number[] };
  const connections = { h2: 0, 'http/1.1': 0 };
  try {
    const lab = await upOnce(labDir, scripts);
    const kept = { h2: client(lab, 'h2'), 'http/1.1': client(lab, 'http/1.1') };
    await roundOf(lab, kept.h2);
    await roundOf(lab, kept['http/1.1']);
    for (let i = 0; i < ROUNDS; i++) {
      for (const transport of i % 2 === 0 ? (['h2', 'http/1.1'] as const) : (['http/1.1', 'h2'] as const)) {
        const fresh = client(lab, transport);
        const figures = await roundOf(lab, fresh).finally(() => fresh.close());
        cpu[transport].push(figures.cpuMs);
        connections[transport] = Math.max(connections[transport], figures.connections);
        warmCpu[transport].push((await roundOf(lab, kept[transport])).cpuMs);
      }
    }
    for (const rest of Object.values(kept)) rest.close();
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`apiclient: stopping the control plane: ${String(err)}\n`));
    rmSync(work, { recursive: true, force: true });
  }
  return {
    rounds: ROUNDS,
    requestsPerRound: PODS * 4,
    'h2.cpuMs': round(median(cpu.h2), 1),
    'http1.cpuMs': round(median(cpu['http/1.1']), 1),
    'h2/http1 cpu': round(median(cpu.h2) / median(cpu['http/1.1']), 2),
    'warm h2.cpuMs': round(median(warmCpu.h2), 1),
    'warm http1.cpuMs': round(median(warmCpu['http/1.1']), 1),
    'warm h2/http1 cpu': round(median(warmCpu.h2) / median(warmCpu['http/1.1']), 2),
    'h2.connections': connections.h2,
    'http1.connections': connections['http/1.1'],
    loadAverage: loadavg().map((l) => l.toFixed(2)).join(' '),
  };
}

function client(lab: KubeLab, transport: 'h2' | 'http/1.1'): RestClient {
  return new RestClient(readKubeconfig(lab.adminKubeconfig), { now: () => Date.now() }, 'kubelet-ts/bench', transport === 'h2' ? h2SettingsFromEnv({}) : null);
}

/** One round's CPU on this client, from its first request (and, on a new client, its handshakes) to the last answer. */
async function roundOf(lab: KubeLab, rest: RestClient): Promise<{ cpuMs: number; connections: number }> {
  const port = new URL(lab.server).port;
  const held = connectionsTo(port);
  const before = process.cpuUsage();
  const list = await rest.request<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces/default/configmaps');
  const watches = await Promise.all(['pods', 'configmaps'].map((what) => rest.stream(`/api/v1/namespaces/default/${what}`, { query: { watch: true, resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true } })));
  for (const w of watches) w.on('data', () => {}).on('error', () => {});
  let next = 0;
  const worker = async () => {
    for (let pod = next++; pod < PODS; pod = next++) {
      for (let e = 0; e < 2; e++) await rest.request('POST', '/api/v1/namespaces/default/events', { body: event(pod, e) });
      await rest.request('PATCH', '/api/v1/namespaces/default', { body: { metadata: { annotations: { [`kts-bench/pod-${pod}`]: String(Date.now()) } } }, contentType: 'application/strategic-merge-patch+json' });
      await rest.request('GET', '/api/v1/namespaces/default');
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const connections = connectionsTo(port) - held;
  for (const w of watches) w.destroy();
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, connections };
}

function event(pod: number, n: number): unknown {
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { generateName: `kts-bench-${pod}-`, namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: `bench-${pod}`, uid: `uid-${pod}`, apiVersion: 'v1' },
    reason: n === 0 ? 'Scheduled' : 'Started', message: `pod ${pod} event ${n}`, type: 'Normal',
    source: { component: 'kubelet', host: 'bench' }, firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(), count: 1,
  };
}

/** This process's established TCP connections to `port` (ss -tnp). */
function connectionsTo(port: string): number {
  const lines = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' }).split('\n');
  return lines.filter((l) => l.includes(`pid=${process.pid},`)).length;
}
