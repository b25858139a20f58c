/**
 * One kubelet's turn on the real control plane (see sidebyside.ts): started → healthz ok, → Node
 * Ready, → its Lease; an idle window with no pods; 30 pods created through the API at once (nodeName
 * set) → each Running with every container running, CPU and peak RSS until all are; an idle window
 * with them; their graceful deletion → no container, no sandbox left in containerd, no pod left in
 * the API; the same burst and deletion again (`burst2.*`: the second burst of a kubelet that has
 * run pods); then the e2e test's scheduled workloads (sidebyside-workloads.ts), each passed or failed
 * without ending the turn. Then the node is cleaned for the next turn, whatever happened: pods
 * deleted, kubelet stopped, leftover sandboxes removed, the Node and its Lease deleted.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { labApi } from '../test/support/kube-lab-up.js';
import { leftInRuntime } from './cluster.js';
import { tearDownEverySandbox } from './cri-fixtures.js';
import { apiserverRequests } from './apiserver-requests.js';
import { BURST_DETAIL, startBurstDetail, type BurstDetail } from './burst-detail.js';
import { criCalls } from './kubelet-cri-calls.js';
import { labWatch } from './lab-watch.js';
import { api, until, type Lab } from './sidebyside-api.js';
import { cpuSeconds, mainThreadCpuSeconds, rssMiB, rssPartsMiB } from './proc-usage.js';
import type { NodeSetup, StartedKubelet } from './sidebyside-kubelets.js';
import { scheduledWorkloads, type WorkloadResults } from './sidebyside-workloads.js';
import { sleep } from './static-pod-fleet.js';
import { counterGrowth, percentile, round } from './stats.js';

export const BURST = 30;
/**
 * The pods' container: idle until SIGTERM. Not test/support/sleeper.ts's command, whose 1 s step
 * leaves no stray `sleep` behind on the embedded runtime (no PID namespace): here containerd's PID
 * namespace takes the background sleep with the shell, so the step can be an hour, and 30 idle
 * containers fork nothing while the bench measures the node.
 */
const SLEEPER = ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"];

interface Condition { type: string; status: string }
interface Pod {
  metadata: { name: string };
  status?: { phase?: string; containerStatuses?: { state?: { running?: object } }[] };
}

export interface TurnOptions {
  lab: Lab;
  setup: NodeSetup;
  namespace: string;
  image: string;
  idleMs: number;
  start(): Promise<StartedKubelet>;
  /** The burst's size (BURST by default; the density case runs Go's maxPods, 110). */
  pods?: number;
  /** A burst pod's volumes and its container's mounts of them (none by default). */
  podVolumes?: (podName: string) => { volumes: object[]; volumeMounts: object[] };
}

/** A namespace whose pods can be admitted with a service-account token: its default ServiceAccount and root CA ConfigMap exist. */
export async function readyNamespace(lab: Lab, ns: string): Promise<void> {
  await api(lab, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const deadline = performance.now() + 60_000;
  for (;;) {
    const sa = await labApi(lab, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    const ca = await labApi(lab, 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
    if (sa.status === 200 && ca.status === 200) return;
    if (performance.now() > deadline) throw new Error(`namespace ${ns}: no default ServiceAccount or kube-root-ca.crt after 60 s`);
    await sleep(200);
  }
}

export interface TurnResult { figures: Record<string, number>; workloads: WorkloadResults }

export async function oneTurn(o: TurnOptions): Promise<TurnResult> {
  const { lab, setup, namespace: ns } = o;
  const out: Record<string, number> = {};
  const pods = o.pods ?? BURST;
  await readyNamespace(lab, ns);
  const kubelet = await o.start();
  try {
    await startUp(o, kubelet, out);
    await idle(kubelet, o.idleMs, 'idle0pods', out);
    await burst(o, kubelet, out, pods);
    await idle(kubelet, o.idleMs, `idle${pods}pods`, out);
    await teardown(o, kubelet, out, pods);
    // The same burst again on the same kubelet: what a node that has run pods before pays, without a
    // fresh process's warm-up (lazy compilation and inline caches for kubelet-ts).
    const again: Record<string, number> = {};
    await burst(o, kubelet, again, pods);
    await teardown(o, kubelet, {}, pods);
    for (const [k, v] of Object.entries(again)) out[k.replace(/^burst\./, 'burst2.')] = v;
    const cri = createCriClient({ endpoint: setup.endpoint });
    try {
      return { figures: out, workloads: await scheduledWorkloads({ lab, node: setup.node, namespace: ns, image: o.image, cri }, kubelet) };
    } finally {
      cri.close();
    }
  } finally {
    await cleanUp(o, kubelet).catch((err: unknown) => process.stderr.write(`sidebyside: cleaning up ${setup.node}: ${String(err)}\n`));
  }
}

export async function startUp(o: TurnOptions, kubelet: StartedKubelet, out: Record<string, number>): Promise<void> {
  const { lab, setup } = o;
  const since = () => round(performance.now() - kubelet.t0, 0);
  const healthz = until(kubelet, 'healthz ok', async () =>
    (await fetch(`http://127.0.0.1:${kubelet.healthzPort}/healthz`).then((r) => r.text()).catch(() => '')) === 'ok', 60_000, 20)
    .then(() => (out.healthzMs = since()));
  const ready = until(kubelet, 'Node Ready', async () => {
    const node = await labApi<{ status?: { conditions?: Condition[] } }>(lab, 'GET', `/api/v1/nodes/${setup.node}`);
    return node.status === 200 && (node.body.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  }, 60_000).then(() => (out.nodeReadyMs = since()));
  const lease = until(kubelet, 'Lease', async () =>
    (await labApi(lab, 'GET', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${setup.node}`)).status === 200, 60_000)
    .then(() => (out.leaseMs = since()));
  await Promise.all([healthz, ready, lease]);
}

/** CPU over the window as seconds per minute (comparable across window lengths) and RSS at its end, after 5 s to settle. */
async function idle(kubelet: StartedKubelet, idleMs: number, label: string, out: Record<string, number>): Promise<void> {
  await sleep(5000);
  const cpu0 = cpuSeconds(kubelet.pid);
  await sleep(idleMs);
  out[`${label}.cpuSecondsPerMinute`] = round(((cpuSeconds(kubelet.pid) - cpu0) * 60_000) / idleMs, 2);
  out[`${label}.rssMiB`] = round(rssMiB(kubelet.pid), 1);
}

const isRunning = (p: Pod) => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).length > 0 &&
  (p.status.containerStatuses ?? []).every((c) => c.state?.running !== undefined);

/**
 * The pods the burst's watch has not seen Running, as the API server has them now: Running there
 * means the watch missed an event, anything else that the kubelet has not started them.
 */
async function notSeenRunning(lab: Lab, ns: string, seen: ReadonlyMap<string, number>): Promise<string> {
  const { items } = await api<{ items: Pod[] }>(lab, 'GET', `/api/v1/namespaces/${ns}/pods`);
  const missing = items.filter((p) => !seen.has(p.metadata.name));
  const described = missing.slice(0, 10).map((p) => `${p.metadata.name} ${isRunning(p) ? 'Running in the API' : (p.status?.phase ?? 'no phase')}`);
  return `${missing.length} pods not seen Running by the watch (${described.join(', ')}${missing.length > 10 ? ', …' : ''})`;
}

/** `pods`: the burst's size; a smaller one serves burstcpu's warm bursts. */
export async function burst(o: TurnOptions, kubelet: StartedKubelet, out: Record<string, number>, pods = BURST): Promise<void> {
  const { lab, setup, namespace: ns } = o;
  const createdAt = new Map<string, number>();
  const runningAfter = new Map<string, number>();
  const watch = await labWatch<Pod>(lab, `/api/v1/namespaces/${ns}/pods`, (e) => {
    const name = e.object.metadata.name;
    const t = createdAt.get(name);
    if (t !== undefined && !runningAfter.has(name) && isRunning(e.object)) runningAfter.set(name, performance.now() - t);
  });
  let peak = 0;
  let peakParts = { anon: 0, file: 0 };
  let detail: BurstDetail | undefined;
  const sampler = setInterval(() => {
    const rss = rssMiB(kubelet.pid);
    if (rss <= peak) return;
    [peak, peakParts] = [rss, rssPartsMiB(kubelet.pid)];
    detail?.atPeak();
  }, 50);
  try {
    // Read outside the CPU window: serving /metrics costs the kubelet too.
    const callsBefore = await criCalls(lab, kubelet.port);
    const requestsBefore = await apiserverRequests(lab);
    detail = startBurstDetail(kubelet.pid);
    const cpu0 = cpuSeconds(kubelet.pid);
    const main0 = kubelet.runsJavaScript ? mainThreadCpuSeconds(kubelet.pid) : 0;
    const burst0 = performance.now();
    const burst0Us = process.hrtime.bigint() / 1000n;
    await Promise.all(Array.from({ length: pods }, (_, i) => {
      const name = `p${i}`;
      createdAt.set(name, performance.now());
      const { volumes, volumeMounts } = o.podVolumes?.(name) ?? { volumes: [], volumeMounts: [] };
      return api(lab, 'POST', `/api/v1/namespaces/${ns}/pods`, {
        metadata: { name },
        spec: { nodeName: setup.node, terminationGracePeriodSeconds: 2, volumes, containers: [{ name: 'main', image: o.image, imagePullPolicy: 'Never', command: SLEEPER, volumeMounts }] },
      });
    }));
    await until(kubelet, `all ${pods} pods Running`, () => runningAfter.size === pods, 180_000, 20).catch(async (err: unknown) => {
      throw new Error(`${await notSeenRunning(lab, ns, runningAfter)}; ${err instanceof Error ? err.message : String(err)}`);
    });
    const cpu = cpuSeconds(kubelet.pid) - cpu0;
    // The event loop's share; the rest is V8's compiler and collector threads and libuv's pool.
    if (kubelet.runsJavaScript) out['burst.mainThreadCpuSeconds'] = round(mainThreadCpuSeconds(kubelet.pid) - main0, 2);
    // On the monotonic clock a --cpu-prof profile's timestamps use, to cut the profile to the burst.
    if (process.env.KUBELET_BENCH_CPU_PROF || BURST_DETAIL) process.stderr.write(`sidebyside: burst of pid ${kubelet.pid}: ${burst0Us} to ${process.hrtime.bigint() / 1000n} us\n`);
    const times = [...runningAfter.values()];
    Object.assign(out, {
      'burst.p50Ms': round(percentile(times, 50), 0), 'burst.p99Ms': round(percentile(times, 99), 0),
      'burst.allRunningMs': round(performance.now() - burst0, 0), 'burst.cpuSeconds': round(cpu, 2), 'burst.peakRssMiB': round(peak, 1),
      'burst.peakRssAnonMiB': round(peakParts.anon, 1), 'burst.peakRssFileMiB': round(peakParts.file, 1),
    });
    detail?.finish(out);
    // The CRI calls the burst made, by operation: the same counter in both kubelets.
    for (const [op, n] of counterGrowth(callsBefore, await criCalls(lab, kubelet.port))) out[`burst.cri.${op}`] = n;
    // And the API server's requests by verb and resource: the kubelet's, but for the bench's own POSTs and watch.
    for (const [kind, n] of counterGrowth(requestsBefore, await apiserverRequests(lab))) out[`burst.api.${kind}`] = n;
  } finally {
    clearInterval(sampler);
    watch.stop();
  }
}

export async function teardown(o: TurnOptions, kubelet: StartedKubelet, out: Record<string, number>, pods = BURST): Promise<void> {
  const { lab, setup, namespace: ns } = o;
  const delete0 = performance.now();
  await Promise.all(Array.from({ length: pods }, (_, i) => api(lab, 'DELETE', `/api/v1/namespaces/${ns}/pods/p${i}`)));
  const done: Record<string, number> = {};
  const cri = createCriClient({ endpoint: setup.endpoint });
  await until(kubelet, 'the deleted pods gone', async () => {
    const elapsed = round(performance.now() - delete0, 0);
    const left = await leftInRuntime(cri, ns);
    if (left.containers === 0) done['teardown.containersRemovedMs'] ??= elapsed;
    if (left.sandboxes === 0) done['teardown.sandboxesRemovedMs'] ??= elapsed;
    const pods = await api<{ items: Pod[] }>(lab, 'GET', `/api/v1/namespaces/${ns}/pods`);
    if (pods.items.length === 0) done['teardown.podsGoneFromApiMs'] ??= elapsed;
    return Object.keys(done).length === 3;
  }, 180_000, 100).finally(() => cri.close());
  Object.assign(out, done);
}

export async function cleanUp(o: TurnOptions, kubelet: StartedKubelet): Promise<void> {
  const { lab, setup, namespace: ns } = o;
  try {
    // Whatever a failed turn left: pods removed from the API at once, then from containerd behind the stopped kubelet.
    await api(lab, 'DELETE', `/api/v1/namespaces/${ns}/pods?gracePeriodSeconds=0`, undefined, [200, 404]);
    await kubelet.stop();
    const cri = createCriClient({ endpoint: setup.endpoint });
    try {
      await tearDownEverySandbox(cri);
    } finally {
      cri.close();
    }
    await api(lab, 'DELETE', `/api/v1/nodes/${setup.node}`, undefined, [200, 404]);
    await api(lab, 'DELETE', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${setup.node}`, undefined, [200, 404]);
    await api(lab, 'DELETE', `/api/v1/namespaces/${ns}`, undefined, [200, 202, 404]);
  } finally {
    // Even when containerd failed a call above: a mount left under the node's dir would fail the
    // removal of the bench's work dir, ending the whole run with an error.
    await kubelet.stop();
    // Volumes a kubelet mounted under its root dir (service-account tokens on tmpfs), deepest first.
    const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(`${setup.dir}/`)).sort().reverse();
    for (const m of mounts) execFileSync('umount', ['-l', m]);
    rmSync(setup.dir, { recursive: true, force: true });
  }
}
