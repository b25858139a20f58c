/**
 * Volumes' cost in cluster mode, how much later a pod with the usual volumes runs than one
 * without: the real binary with --kubeconfig against the test API
 * server (in this process; its cost is not counted), on containerd (KUBELET_IT_CRI) and the embedded
 * runtime, taking turns, a fresh daemon per runtime and run. Each run:
 *   (a) 30 pods without volumes created at once → each pod Running (from its own creation, as the
 *       API sees its status), p50/p99; deleted (grace 2 s) and waited for until gone from the API
 *       and their containers from the runtime;
 *   (b) the same 30 pods, each with the projected `kube-api-access-<x>` volume exactly as the
 *       ServiceAccount admission plugin adds it, a configMap volume and a secret volume (one shared
 *       ConfigMap and Secret) → the same figures; p99(b)/p99(a) against its target of 1.10;
 *   (a) and (b) alternate their order from run to run, to cancel drift; before them, a first burst of
 *       30 pods without volumes, not measured: the first pods a daemon starts pay for loading and
 *       compiling the code every pod start runs, which would otherwise land on whichever of (a) and
 *       (b) came first — on (b) in every other run, though volumes have nothing to do with it. (b)
 *       still pays its own code's first use.
 *       KUBELET_BENCH_VOLUMES_WARMUP=0 leaves it out; =both makes every other pod of it one with
 *       volumes, so (b) too comes to warm code;
 *   (c) 110 pods with those volumes → all Running; idle → the daemon's CPU (% of a core) and RSS
 *       (median of the window); their deletion → every pod directory under the root dir removed and
 *       no mount left under it (/proc/self/mountinfo).
 * The kubelet's own share of each pod's start (the event log's sync steps subtracted, as the `pods`
 * bench computes it; mounting the volumes counts as the kubelet's) is read from the event log at the end.
 * Medians over the runs are printed, each targeted figure also as its ratio to the target (≤ 1 meets it).
 * `npm run bench -- volumes` (run only when named: it takes minutes a run and runtime).
 * KUBELET_BENCH_VOLUMES_RUNS=N (default 3); KUBELET_BENCH_VOLUMES_IDLE_SECONDS=S (default 60);
 * KUBELET_BENCH_VOLUMES_RUNTIMES=containerd|embedded: one runtime only. KUBELET_BENCH_VOLUMES_FLEET=plain:
 * the 110 pods of (c) without volumes, to set beside a run with them.
 * KUBELET_BENCH_VOLUMES_PARTS=burst: (a) and (b) only, without the 110 pods of (c); =fleet: (c) only.
 * KUBELET_BENCH_VOLUMES_ORDER=a|b|c|ab|ba|ac…: these bursts in every run instead of the alternating
 * pair, any number of each (c: the 30 pods each with a claim to its own pre-bound hostPath PV, no
 * other volume: p99(c)/p99(a) is `burst.claimsP99Ratio`); a repeated kind's figures are those of its last burst (the first burst
 * of each kind keeps the names plain-N and vols-N, whose event-log shares are printed).
 * KUBELET_BENCH_HEAP_SNAPSHOTS=DIR (with three bursts or more): heap snapshots of the daemon after the
 * second burst and after the last, each once its pods are gone and housekeeping has run; compare
 * them with `node dist/bench/heap-diff.js` (what the daemon kept per pod shows as growth).
 * KUBELET_BENCH_CLUSTER_FLAGS='--flag=value ...': more daemon flags, as for `cluster`.
 * KUBELET_BENCH_KEEP_JOURNAL=DIR copies each run's event log there (for a look at where a start's time went);
 * the directory is made if missing.
 * KUBELET_BENCH_CPU_PROF=DIR writes a CPU profile of each daemon there (bench/cluster.ts), and each
 * burst's span and the idle window's are printed on the monotonic clock the profile's timestamps
 * count on, to cut it by.
 * KUBELET_BENCH_V8_FLAGS='--flag ...': V8 options for the daemon after its own (bench/cluster.ts).
 * The daemon's root dir is made under os.tmpdir(): TMPDIR=DIR puts it on another file system. The
 * bench prints which one it is: an ext4 without a journal (as some machines' root is) spends kernel
 * CPU on each new inode skipping those deleted in the last minutes (the suites', the (a)
 * burst's teardown), and volumes make inodes (bench/root-fs.ts).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import type { CriClient } from '../src/ports/cri.js';
import { kubeApiAccessName, kubeApiAccessVolume, startTestApiServer, type TestApiServer } from '../test/apiserver/index.js';
import { isNodeReady, leftInRuntime, startClusterKubelet, type ClusterKubelet } from './cluster.js';
import { podStartTimings } from './pod-start-timings.js';
import { heapSnapshotDir, takeHeapSnapshot } from './heap-snapshot.js';
import { describeRootFileSystem, rootFileSystem } from './root-fs.js';
import { cpuSeconds, machineCpuSeconds, mainThreadCpuSeconds, rssMiB } from './proc-usage.js';
import { podRuns, removePods, sleep, type PodRun } from './static-pod-fleet.js';
import { median, percentile, round } from './stats.js';

const NODE = 'node-volumes';
const BURST = 30;
const FLEET = 110;
const IDLE_MS = Number(process.env.KUBELET_BENCH_VOLUMES_IDLE_SECONDS ?? 60) * 1000;
const RUNS = Number(process.env.KUBELET_BENCH_VOLUMES_RUNS ?? 3);
const SLEEPER = ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"];
const IMAGE = 'kubelet-ts.local/busybox:1.0';
const FLEET_VOLUMES = process.env.KUBELET_BENCH_VOLUMES_FLEET !== 'plain';
const WITH_FLEET = process.env.KUBELET_BENCH_VOLUMES_PARTS !== 'burst';
const WITH_BURSTS = process.env.KUBELET_BENCH_VOLUMES_PARTS !== 'fleet';
/** KUBELET_BENCH_VOLUMES_WARMUP=0|plain|both: no warm-up burst, one of plain pods, one of both kinds taking turns. */
const WARMUP_TEXT = process.env.KUBELET_BENCH_VOLUMES_WARMUP ?? 'plain';
const WARMUP = WARMUP_TEXT !== '0';
const WARMUP_VOLUMES = WARMUP_TEXT === 'both' ? 'alternate' : false;
/** KUBELET_BENCH_VOLUMES_ORDER=a|b|ab|ba|abab…: the bursts each run makes, in that order (a profile of one alone, a soak). */
const ORDER_TEXT = process.env.KUBELET_BENCH_VOLUMES_ORDER ?? '';
type BurstKind = 'a' | 'b' | 'c';
const ORDER = /^[abc]+$/.test(ORDER_TEXT) ? [...ORDER_TEXT].filter((c): c is BurstKind => c === 'a' || c === 'b' || c === 'c') : undefined;
/** The pods of each burst kind: none, the usual API-content volumes, or a claim each. */
const BURST_VOLUMES: Record<BurstKind, PodVolumes> = { a: false, b: true, c: 'claim' };
const BURST_PREFIX: Record<BurstKind, string> = { a: 'plain', b: 'vols', c: 'claims' };

/** The targets (the idle ones are the pod targets of docs/BENCHMARKS.md). */
const TARGETS: Record<string, number> = {
  'burst.p99Ratio': 1.1,
  [`idle${FLEET}.cpuPercentOfCore`]: 2,
  [`idle${FLEET}.rssMiB`]: 150,
  [`start${FLEET}.kubeletShareP99Ms`]: 100,
  'teardown.podDirsLeft': 0,
  'teardown.mountsLeft': 0,
};

type PodObject = { metadata?: { name?: string; namespace?: string }; status?: { phase?: string } };

/** A pod's volumes: none, the usual API-content ones, or one claim (`<pod name>`, bound to a hostPath PV of its own). */
type PodVolumes = boolean | 'claim';

function podObject(name: string, namespace: string, withVolumes: PodVolumes): Record<string, unknown> {
  const container: Record<string, unknown> = { name: 'main', image: IMAGE, command: SLEEPER };
  const spec: Record<string, unknown> = { nodeName: NODE, serviceAccountName: 'default', terminationGracePeriodSeconds: 2, containers: [container] };
  if (withVolumes === 'claim') {
    spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: name } }];
    container.volumeMounts = [{ name: 'data', mountPath: '/data' }];
  } else if (withVolumes) {
    const access = kubeApiAccessVolume(kubeApiAccessName());
    spec.volumes = [
      access.volume,
      { name: 'settings', configMap: { name: 'settings', defaultMode: 420 } },
      { name: 'creds', secret: { secretName: 'creds', defaultMode: 420 } },
    ];
    container.volumeMounts = [
      access.mount,
      { name: 'settings', mountPath: '/etc/settings', readOnly: true },
      { name: 'creds', mountPath: '/etc/creds', readOnly: true },
    ];
  }
  return { metadata: { name, namespace }, spec };
}

/** Mount points at or under `dir` in this mount namespace (the kubelet's and the bench's). */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
    .map((line) => (line.split(' ')[4] ?? '').replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((at) => at === dir || at.startsWith(`${dir}/`));
}

const podDirs = (root: string): string[] => (existsSync(join(root, 'pods')) ? readdirSync(join(root, 'pods')) : []);

export async function benchVolumes(): Promise<Record<string, number>> {
  const only = process.env.KUBELET_BENCH_VOLUMES_RUNTIMES;
  // containerd first in each round: the runtime whose figures are the kubelet's alone.
  const runtimes = podRuns('volumes', [FLEET], [FLEET]).reverse()
    .filter((r) => !only || only === (r.endpoint === 'embedded' ? 'embedded' : 'containerd'));
  process.stdout.write(`volumes: the kubelet's root dirs go under ${tmpdir()}: ${describeRootFileSystem(rootFileSystem(tmpdir()))}\n`);
  const samples = new Map<string, number[]>();
  for (let i = 0; i < RUNS; i++) {
    for (const run of runtimes) {
      const name = run.endpoint === 'embedded' ? 'embedded' : 'containerd';
      const figures = await oneRun(run, ORDER ?? (i % 2 === 0 ? ['a', 'b'] : ['b', 'a']));
      process.stdout.write(`volumes: run ${i + 1}/${RUNS}, ${name}: ${JSON.stringify(figures)}\n`);
      for (const [k, v] of Object.entries(figures)) {
        const key = `${name}.${k}`;
        samples.set(key, [...(samples.get(key) ?? []), v]);
      }
    }
  }
  const out: Record<string, number> = { runs: RUNS, idleSeconds: IDLE_MS / 1000, fleetWithVolumes: Number(FLEET_VOLUMES) };
  for (const [key, values] of samples) out[key] = median(values);
  for (const [key, value] of Object.entries(out)) {
    const target = TARGETS[key.slice(key.indexOf('.') + 1)];
    if (target !== undefined && target > 0) out[`${key}/target`] = round(value / target, 2);
  }
  return out;
}

/** Per pod, ms from its creation to the API first showing it Running: filled in as the statuses arrive. */
function watchRunning(api: TestApiServer, namespace: string): { created: (name: string) => void; runningMs: Map<string, number>; close: () => void } {
  const createdAt = new Map<string, number>();
  const runningMs = new Map<string, number>();
  const close = api.store.subscribe((change) => {
    if (change.storage !== 'pods') return;
    const pod = change.object as PodObject;
    const name = pod.metadata?.name ?? '';
    const at = createdAt.get(name);
    if (pod.metadata?.namespace === namespace && pod.status?.phase === 'Running' && at !== undefined && !runningMs.has(name)) {
      runningMs.set(name, performance.now() - at);
    }
  });
  return { created: (name) => createdAt.set(name, performance.now()), runningMs, close };
}

/** A claim per pod name, Bound to a hostPath PV of its own under `dir` (as the PV controller leaves them). */
function createBoundClaims(api: TestApiServer, namespace: string, dir: string, names: readonly string[]): void {
  for (const name of names) {
    const pv = `pv-${namespace}-${name}`;
    // The store gives the claim its uid: the PV's claimRef names it, as the PV controller's binding does.
    const claim = api.store.create('persistentvolumeclaims', {
      metadata: { name, namespace }, spec: { accessModes: ['ReadWriteOnce'], volumeName: pv, resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Bound' },
    });
    api.store.create('persistentvolumes', {
      metadata: { name: pv },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: join(dir, 'pvs', name), type: 'DirectoryOrCreate' },
        claimRef: { namespace, name, uid: claim.metadata?.uid },
      },
      status: { phase: 'Bound' },
    });
  }
}

async function oneRun(run: PodRun, order: BurstKind[]): Promise<Record<string, number>> {
  const api = await startTestApiServer();
  // The service-account signing key, which the test API server makes on first use (an RSA key, slow
  // to generate), is made now: a kube-apiserver reads its key at start, so no TokenRequest waits for it.
  await api.tokens.publicKeyPem();
  const dir = mkdtempSync(join(tmpdir(), 'kts-volumes-'));
  const root = join(dir, 'root');
  // A namespace of the run's own, so its containers are told from any other test's on a shared containerd.
  const namespace = `vol-${process.pid}`;
  api.store.create('namespaces', { metadata: { name: namespace } });
  api.store.create('configmaps', { metadata: { name: 'settings', namespace }, data: { 'app.properties': 'mode=bench\nlevel=info\n', greeting: 'hello' } });
  api.store.create('secrets', { metadata: { name: 'creds', namespace }, data: { password: Buffer.from('bench-password').toString('base64'), user: Buffer.from('bench').toString('base64') } });
  const kubelet = await startClusterKubelet(run, api, dir, NODE, (process.env.KUBELET_BENCH_CLUSTER_FLAGS ?? '').split(' ').filter(Boolean));
  const watch = watchRunning(api, namespace);
  const cri = createCriClient({ endpoint: run.endpoint === 'embedded' ? `unix://${join(root, 'embedded-runtime', 'cri.sock')}` : run.endpoint });
  // The machine's load when the run began (other work on a shared machine shows in every figure).
  const out: Record<string, number> = { loadAverage1m: round(loadavg()[0]!, 1) };
  try {
    const ready0 = performance.now();
    while (!isNodeReady(api, NODE)) {
      if (kubelet.child.exitCode !== null) throw new Error(`the kubelet exited:\n${kubelet.stderr().slice(-2000)}`);
      if (performance.now() - ready0 > 60_000) throw new Error(`no Node Ready within 60 s:\n${kubelet.stderr().slice(-2000)}`);
      await sleep(20);
    }
    await sleep(3000);
    if (WITH_BURSTS && WARMUP) {
      const names = await startPods(api, kubelet, watch, namespace, 'warmup', BURST, WARMUP_VOLUMES, 120_000);
      out['burst.warmup.p99Ms'] = round(percentile(names.map((n) => watch.runningMs.get(n)!), 99), 0);
      await deletePods(api, cri, namespace, names, 120_000);
      await sleep(2000);
    }
    const bursts = WITH_BURSTS ? order : [];
    for (const [index, phase] of bursts.entries()) {
      // Pods of a repeated burst get names of their own (plain3-N, vols4-N): the API still has the last ones' for a while.
      const prefix = BURST_PREFIX[phase] + (bursts.indexOf(phase) === index ? '' : String(index + 1));
      if (phase === 'c') createBoundClaims(api, namespace, dir, Array.from({ length: BURST }, (_, i) => `${prefix}-${i}`));
      const cpu0 = cpuSeconds(kubelet.pid);
      const main0 = mainThreadCpuSeconds(kubelet.pid);
      const machine0 = machineCpuSeconds();
      const bench0 = process.cpuUsage();
      const burstStartUs = process.hrtime.bigint() / 1000n;
      const names = await startPods(api, kubelet, watch, namespace, prefix, BURST, BURST_VOLUMES[phase], 120_000);
      // The burst's span on the monotonic clock a CPU profile's timestamps count on.
      if (process.env.KUBELET_BENCH_CPU_PROF) process.stdout.write(`volumes: burst ${phase} of pid ${kubelet.pid}: ${burstStartUs} to ${process.hrtime.bigint() / 1000n} us\n`);
      // The kubelet's CPU from the creations to the last pod Running (the embedded runtime's included),
      // and its main thread's share.
      const cpuMs = (cpuSeconds(kubelet.pid) - cpu0) * 1000;
      const mainMs = (mainThreadCpuSeconds(kubelet.pid) - main0) * 1000;
      const machineMs = (machineCpuSeconds() - machine0) * 1000;
      const benchUsage = process.cpuUsage(bench0);
      const ms = names.map((n) => watch.runningMs.get(n)!);
      Object.assign(out, {
        [`burst.${phase}.p50Ms`]: round(percentile(ms, 50), 0), [`burst.${phase}.p99Ms`]: round(percentile(ms, 99), 0),
        [`burst.${phase}.kubeletCpuMs`]: round(cpuMs, 0), [`burst.${phase}.kubeletMainThreadCpuMs`]: round(mainMs, 0),
        [`burst.${phase}.machineCpuMs`]: round(machineMs, 0),
        [`burst.${phase}.benchCpuMs`]: round((benchUsage.user + benchUsage.system) / 1000, 0),
      });
      await deletePods(api, cri, namespace, names, 120_000);
      await sleep(2000);
      const heapDir = heapSnapshotDir();
      if (heapDir !== undefined && bursts.length > 2 && (index === 1 || index === bursts.length - 1)) {
        // The pod directories go with housekeeping's next sweep (every 2 s): then the snapshot.
        await sleep(4000);
        process.stdout.write(`volumes: heap snapshot after burst ${index + 1} of ${bursts.length}: ${await takeHeapSnapshot(kubelet.pid, heapDir)}\n`);
      }
    }
    if (out['burst.a.p99Ms'] !== undefined && out['burst.b.p99Ms'] !== undefined) {
      out['burst.p99Ratio'] = round(out['burst.b.p99Ms']! / out['burst.a.p99Ms']!, 3);
      out['burst.p50Ratio'] = round(out['burst.b.p50Ms']! / out['burst.a.p50Ms']!, 3);
    }
    if (out['burst.a.p99Ms'] !== undefined && out['burst.c.p99Ms'] !== undefined) {
      out['burst.claimsP99Ratio'] = round(out['burst.c.p99Ms']! / out['burst.a.p99Ms']!, 3);
      out['burst.claimsP50Ratio'] = round(out['burst.c.p50Ms']! / out['burst.a.p50Ms']!, 3);
    }

    // (c) 110 pods with volumes (unless KUBELET_BENCH_VOLUMES_FLEET=plain), idle, deleted.
    if (WITH_FLEET) await fleetRun(api, kubelet, watch, cri, namespace, root, out);
    out.loadAverage1mAtEnd = round(loadavg()[0]!, 1);
  } finally {
    watch.close();
    cri.close();
    await kubelet.stop();
    await api.close();
    // The pods outlive the kubelet, as in Go: removed through the runtime (a fresh embedded one on its state).
    out.podsRemoved = await removePods(run, { dir, root }, (name, ns) => ns === namespace && /^(plain|vols|claims|fleet)\d*-\d+$/.test(name));
  }
  // The kubelet's own share of each start, from its event log (after the daemon's exit: the log is
  // complete). None with the journal off (KUBELET_BENCH_CLUSTER_FLAGS=--event-log=): then only the
  // timings seen from outside are printed.
  const eventLog = join(root, 'events', 'latest.jsonl');
  if (existsSync(eventLog)) {
    const starts = podStartTimings(readJournal(eventLog).records);
    for (const [label, prefix] of [['a', 'plain-'], ['b', 'vols-'], ['c', 'claims-'], [`${FLEET}`, 'fleet-']] as const) {
      const share = starts.filter((s) => s.name.startsWith(prefix)).map((s) => s.kubeletMs);
      const key = label === `${FLEET}` ? `start${FLEET}` : `burst.${label}`;
      Object.assign(out, { [`${key}.journaledStarts`]: share.length, [`${key}.kubeletShareP50Ms`]: percentile(share, 50), [`${key}.kubeletShareP99Ms`]: percentile(share, 99) });
    }
    const keep = process.env.KUBELET_BENCH_KEEP_JOURNAL;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      copyFileSync(eventLog, join(keep, `volumes-${run.label}-${Date.now()}.jsonl`));
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return out;
}

/** (c): 110 pods started at once, the idle window, their deletion and what it leaves behind. */
async function fleetRun(
  api: TestApiServer, kubelet: ClusterKubelet, watch: ReturnType<typeof watchRunning>, cri: CriClient, namespace: string, root: string,
  out: Record<string, number>,
): Promise<void> {
  let peak = 0;
  const fleet0 = performance.now();
  const fleet = await startPods(api, kubelet, watch, namespace, 'fleet', FLEET, FLEET_VOLUMES, 300_000, () => (peak = Math.max(peak, rssMiB(kubelet.pid))));
  const ms = fleet.map((n) => watch.runningMs.get(n)!);
  Object.assign(out, {
    [`start${FLEET}.allRunningMs`]: round(performance.now() - fleet0, 0), [`start${FLEET}.p50Ms`]: round(percentile(ms, 50), 0),
    [`start${FLEET}.p99Ms`]: round(percentile(ms, 99), 0), [`start${FLEET}.peakRssMiB`]: round(peak, 1),
  });
  await sleep(5000);
  const cpu0 = cpuSeconds(kubelet.pid);
  const main0 = mainThreadCpuSeconds(kubelet.pid);
  const rss: number[] = [];
  const idleEnd = performance.now() + IDLE_MS;
  const idleStartUs = process.hrtime.bigint() / 1000n;
  while (performance.now() < idleEnd) {
    rss.push(rssMiB(kubelet.pid));
    await sleep(Math.min(5000, Math.max(0, idleEnd - performance.now())));
  }
  rss.push(rssMiB(kubelet.pid));
  if (process.env.KUBELET_BENCH_CPU_PROF) process.stdout.write(`volumes: idle of pid ${kubelet.pid}: ${idleStartUs} to ${process.hrtime.bigint() / 1000n} us\n`);
  const cpu = cpuSeconds(kubelet.pid) - cpu0;
  const main = mainThreadCpuSeconds(kubelet.pid) - main0;
  Object.assign(out, {
    [`idle${FLEET}.cpuPercentOfCore`]: round((cpu * 100_000) / IDLE_MS, 2), [`idle${FLEET}.cpuSecondsPerMinute`]: round((cpu * 60_000) / IDLE_MS, 2),
    [`idle${FLEET}.mainThreadCpuPercentOfCore`]: round((main * 100_000) / IDLE_MS, 2),
    [`idle${FLEET}.rssMiB`]: round(median(rss), 1), tokenRequests: api.tokens.requests.length,
  });
  const delete0 = performance.now();
  const gone = await deletePods(api, cri, namespace, fleet, 180_000);
  Object.assign(out, { 'teardown.containersRemovedMs': round(gone.containersGoneMs, 0), 'teardown.podsGoneFromApiMs': round(gone.apiGoneMs, 0) });
  // The pod directories go with the housekeeping sweep after the pods are gone: waited for, 120 s at most.
  for (;;) {
    const left = podDirs(root);
    if (left.length === 0 || performance.now() - delete0 > 120_000) {
      out['teardown.podDirsRemovedMs'] = left.length === 0 ? round(performance.now() - delete0, 0) : -1;
      out['teardown.podDirsLeft'] = left.length;
      break;
    }
    await sleep(100);
  }
  const mounts = mountsUnder(root);
  out['teardown.mountsLeft'] = mounts.length;
  if (mounts.length > 0) process.stdout.write(`volumes: mounts left under ${root}:\n  ${mounts.join('\n  ')}\n`);
}

/** Creates `n` pods at once and waits until the API shows every one Running; answers their names. */
async function startPods(
  api: TestApiServer, kubelet: ClusterKubelet, watch: ReturnType<typeof watchRunning>, namespace: string,
  prefix: string, n: number, withVolumes: PodVolumes | 'alternate', timeoutMs: number, onTick?: () => void,
): Promise<string[]> {
  const names = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const objects = names.map((name, i) => podObject(name, namespace, withVolumes === 'alternate' ? i % 2 === 1 : withVolumes));
  const t0 = performance.now();
  for (const [i, name] of names.entries()) {
    watch.created(name);
    api.store.create('pods', objects[i]!);
  }
  for (;;) {
    onTick?.();
    const running = names.filter((name) => watch.runningMs.has(name)).length;
    if (running === n) return names;
    if (kubelet.child.exitCode !== null) throw new Error(`the kubelet exited:\n${kubelet.stderr().slice(-2000)}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`${running} of ${n} ${prefix} pods Running after ${timeoutMs} ms:\n${kubelet.stderr().slice(-3000)}`);
    await sleep(50);
  }
}

/**
 * Deletes the pods as kubectl does (grace 2 s) and waits until they are gone from the API and their
 * containers from the runtime; answers when each happened (ms after the deletion).
 */
async function deletePods(api: TestApiServer, cri: CriClient, namespace: string, names: readonly string[], timeoutMs: number): Promise<{ apiGoneMs: number; containersGoneMs: number }> {
  for (const name of names) api.store.delete('pods', namespace, name, { gracePeriodSeconds: 2 });
  const t0 = performance.now();
  let apiGoneMs = 0;
  let containersGoneMs = 0;
  for (;;) {
    const inApi = api.store.list('pods', { namespace }).items.length;
    const { containers } = await leftInRuntime(cri, namespace);
    if (apiGoneMs === 0 && inApi === 0) apiGoneMs = performance.now() - t0;
    if (containersGoneMs === 0 && containers === 0) containersGoneMs = performance.now() - t0;
    if (apiGoneMs > 0 && containersGoneMs > 0) return { apiGoneMs, containersGoneMs };
    if (performance.now() - t0 > timeoutMs) throw new Error(`${timeoutMs} ms after deleting: ${inApi} pods in the API, ${containers} containers`);
    await sleep(100);
  }
}
