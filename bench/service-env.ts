/**
 * The Service environment variables with 3,000 Services in the cluster: 30 container starts, their
 * pods all in one namespace holding every Service (24,008 variables each), or spread over 300
 * namespaces of 10. Two ways side by side, alternating: every Service filtered for each container
 * (what Go does, and kubelet-ts did), and the source over the informer's namespace index with each
 * namespace's variables kept per version (service-env-source.ts); a fresh source per run, so its
 * first container pays the build. CPU of the 30 builds. And the informer taking in the 3,000-item
 * list (the API client's JSON parse is not in it): the CPU of its longest turn of the event loop,
 * and of all of them.
 */
import { pino } from 'pino';
import { serviceEnvSource } from '../src/actors/runtime-manager/service-env-source.js';
import { startServiceInformer } from '../src/adapters/apiserver/service-informer.js';
import { systemClock } from '../src/adapters/system-clock.js';
import type { Pod } from '../src/domain/pod/types.js';
import { serviceEnvVarMap } from '../src/domain/runtime/service-env.js';
import type { KubeObject } from '../src/ports/apiserver.js';
import type { ServiceInformer } from '../src/ports/services.js';
import { median, round } from './stats.js';

const SERVICES = 3_000;
const CONTAINERS = 30;
const SPREAD_NAMESPACES = 300;

/** A Service as a real API server lists it (`kubectl create service clusterip`), managed fields included. */
function service(i: number, namespace: string): KubeObject {
  const ip = `10.97.${i >> 8}.${i & 255}`;
  return {
    metadata: {
      name: `svc-${i}`, namespace, uid: `0d6f3a52-${String(i).padStart(4, '0')}-4c1e-9a57-3f1d2b9c8e7a`, resourceVersion: String(1_000 + i),
      creationTimestamp: '2026-11-27T19:00:00Z', labels: { app: `svc-${i}` },
      managedFields: [{ manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T19:00:00Z', fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { 'f:name': {}, 'f:port': {}, 'f:targetPort': {} } }, 'f:selector': {}, 'f:type': {} } } }],
    },
    spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 80 }], selector: { app: `svc-${i}` }, type: 'ClusterIP' },
  } as KubeObject;
}

const master = { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', protocol: 'TCP', port: 443 }] } } as KubeObject;

const pod = (namespace: string): Pod => ({ metadata: { name: 'p', namespace, uid: 'u' }, spec: { containers: [] } });

/** The informer over an API answering `items` and a watch that never speaks; the CPU of its longest turn and its total while it takes the list in. */
async function informerOver(items: KubeObject[]): Promise<{ informer: ServiceInformer; longestTurnCpuMs: number; intakeCpuMs: number }> {
  const started = process.cpuUsage();
  let last = started;
  let longestTurnCpuMs = 0;
  const informer = startServiceInformer({
    api: { listServices: () => Promise.resolve({ resourceVersion: '1', items }), watchServices: () => Promise.resolve({ stop: () => {} }) },
    clock: systemClock,
    logger: pino({ level: 'silent' }),
  });
  while (!informer.hasSynced()) {
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.cpuUsage(last);
    longestTurnCpuMs = Math.max(longestTurnCpuMs, (used.user + used.system) / 1000);
    last = process.cpuUsage();
  }
  const total = process.cpuUsage(started);
  return { informer, longestTurnCpuMs, intakeCpuMs: (total.user + total.system) / 1000 };
}

function cpuMs(work: () => void): number {
  const t0 = process.cpuUsage();
  work();
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

export async function benchServiceEnv(runs = 5): Promise<Record<string, number>> {
  const layouts = {
    oneNamespace: { items: Array.from({ length: SERVICES }, (_, i) => service(i, 'bulk')), podNamespace: () => 'bulk' },
    spread: { items: Array.from({ length: SERVICES }, (_, i) => service(i, `ns-${i % SPREAD_NAMESPACES}`)), podNamespace: (c: number) => `ns-${(c * 7) % SPREAD_NAMESPACES}` },
  };
  const out: Record<string, number> = { services: SERVICES, containers: CONTAINERS, runs };
  for (const [name, layout] of Object.entries(layouts)) {
    const turns: number[] = [];
    const intakes: number[] = [];
    const scanned: number[] = [];
    const indexed: number[] = [];
    for (let r = 0; r < runs; r++) {
      const { informer, longestTurnCpuMs, intakeCpuMs } = await informerOver([master, ...layout.items]);
      turns.push(longestTurnCpuMs);
      intakes.push(intakeCpuMs);
      const scan = () => cpuMs(() => {
        for (let c = 0; c < CONTAINERS; c++) serviceEnvVarMap(informer.list(), layout.podNamespace(c), true);
      });
      const index = () => cpuMs(() => {
        const source = serviceEnvSource(informer);
        for (let c = 0; c < CONTAINERS; c++) source(pod(layout.podNamespace(c)));
      });
      for (const way of r % 2 === 0 ? [scan, index] : [index, scan]) (way === scan ? scanned : indexed).push(way());
      informer.stop();
    }
    out[`${name}CpuMsEveryService`] = round(median(scanned), 1);
    out[`${name}CpuMsNamespaceIndex`] = round(median(indexed), 1);
    out[`${name}IndexOverEvery`] = round(median(indexed) / median(scanned), 3);
    out[`${name}ListIntakeCpuMs`] = round(median(intakes), 1);
    out[`${name}ListLongestTurnCpuMs`] = round(median(turns), 1);
  }
  return out;
}
