/**
 * Idle memory of cluster mode on containerd, the way users run it (`npm run bench -- idlemem`):
 * kubelet-ts under several sets of V8 options and a bare Node process under the executable's options
 * (`node -e 'setInterval(()=>{},1e6)'`), side by side in each run: all start together, each kubelet
 * with a node of its own against one test API server (in this process, not counted) and no pods.
 * Once every kubelet is Ready and has settled, one window measures each process's CPU and, at its
 * end, its RSS (anonymous and file pages apart). Medians over the runs are printed per variant, and
 * each kubelet's RSS less the bare process's (what kubelet-ts itself holds).
 * KUBELET_IT_CRI names the containerd (skipped without it). KUBELET_BENCH_IDLEMEM_RUNS=N (5);
 * _SETTLE_SECONDS=S (20) after Ready; _SECONDS=S (30) of window; _VARIANTS=a,b: only those.
 * The kubelet server is on, as in a cluster (on 127.0.0.1, anonymous, a self-signed certificate made at
 * start); KUBELET_BENCH_IDLEMEM_SERVER=0 turns it off.
 * KUBELET_BENCH_IDLEMEM_PODS=N (0): then N pods on each kubelet at once (its peak RSS and CPU to all
 * Running as `burst.*`), a settle and a second window (`pods.*`), and their graceful deletion, waited
 * for in the runtime, before the kubelets stop (the next run's kubelets would find them orphans);
 * the sandboxes they leave are removed through CRI after.
 * KUBELET_BENCH_IDLEMEM_BASELINE=DIR[,DIR…]: one more kubelet per DIR, named as DIR is, from an earlier
 * build's bundle copied there (inside the package, e.g. dist/bundle-before, so it finds node_modules),
 * for a cut's before/after. KUBELET_BENCH_IDLEMEM_APART=1: the kubelets one at a time (each beside a
 * bare process), in turns: with PODS, each then lists only its own pods from the shared runtime, as on
 * a node, rather than every kubelet's.
 * KUBELET_BENCH_HEAP_SNAPSHOTS=DIR: a heap snapshot of every process at the end of the last run's idle
 * window, and with PODS at the end of each of its two (compare the bare one with a kubelet's, or a
 * kubelet's two: `node dist/bench/heap-diff.js A B`). Writing one swells the process's RSS, so the
 * figures after the first snapshot are not to be compared.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { KUBELET_NODE_FLAGS } from '../src/bin/node-flags.js';
import { startTestApiServer, type TestApiServer } from '../test/apiserver/index.js';
import { isNodeReady, startClusterKubelet } from './cluster.js';
import { tearDownEverySandbox } from './cri-fixtures.js';
import { freePort } from './free-port.js';
import { heapSnapshotDir, heapSnapshotFlags, takeHeapSnapshot } from './heap-snapshot.js';
import { cpuSeconds, rssMiB, rssPartsMiB } from './proc-usage.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';

const RUNS = Number(process.env.KUBELET_BENCH_IDLEMEM_RUNS ?? 5);
const SETTLE_MS = Number(process.env.KUBELET_BENCH_IDLEMEM_SETTLE_SECONDS ?? 20) * 1000;
const WINDOW_MS = Number(process.env.KUBELET_BENCH_IDLEMEM_SECONDS ?? 30) * 1000;
const SERVER = process.env.KUBELET_BENCH_IDLEMEM_SERVER !== '0';
const PODS = Number(process.env.KUBELET_BENCH_IDLEMEM_PODS ?? 0);
const APART = process.env.KUBELET_BENCH_IDLEMEM_APART === '1';
const SLEEPER = ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"];

interface Variant {
  name: string;
  nodeFlags: readonly string[];
  /** A bare Node process instead of the kubelet. */
  bare?: boolean;
  /** Another build of the binary (KUBELET_BENCH_IDLEMEM_BASELINE). */
  bin?: string;
  /** More environment for the process (glibc's malloc reads its tunables there). */
  env?: Record<string, string>;
}

const young = (mib: number) => [`--max-semi-space-size=${mib}`, '--heap-growing-percent=50'];
const VARIANTS: Variant[] = [
  { name: 'bare', nodeFlags: KUBELET_NODE_FLAGS, bare: true },
  { name: 'kubelet-ts', nodeFlags: KUBELET_NODE_FLAGS },
  { name: 'v8-defaults', nodeFlags: [] },
  { name: 'semi-space-2', nodeFlags: young(2) },
  { name: 'semi-space-1', nodeFlags: young(1) },
  { name: 'lite-mode', nodeFlags: [...KUBELET_NODE_FLAGS, '--lite-mode'] },
  { name: 'no-opt', nodeFlags: [...KUBELET_NODE_FLAGS, '--no-opt'] },
  { name: 'jitless', nodeFlags: [...KUBELET_NODE_FLAGS, '--jitless'] },
  { name: 'optimize-for-size', nodeFlags: [...KUBELET_NODE_FLAGS, '--optimize-for-size'] },
  { name: 'v8-pool-size-1', nodeFlags: [...KUBELET_NODE_FLAGS, '--v8-pool-size=1'] },
  { name: 'no-sparkplug', nodeFlags: [...KUBELET_NODE_FLAGS, '--no-sparkplug'] },
  { name: 'malloc-arena-max-2', nodeFlags: KUBELET_NODE_FLAGS, env: { MALLOC_ARENA_MAX: '2' } },
];

interface Running {
  pid: number;
  /** The kubelet's node; none for the bare process. */
  node?: string;
  /** Whether it is up and, for a kubelet, its Node Ready; throws once it has exited. */
  ready(): boolean;
  stop(): Promise<void>;
}

function startBare(nodeFlags: readonly string[]): Running {
  const child = spawn(process.execPath, [...nodeFlags, ...heapSnapshotFlags(), '-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  return {
    pid: child.pid!,
    ready: () => {
      if (child.exitCode !== null) throw new Error('the bare node process exited');
      return true;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function startVariant(v: Variant, api: TestApiServer, dir: string, node: string): Promise<Running> {
  if (v.bare) return startBare(v.nodeFlags);
  // The child inherits this process's environment at its spawn: set for that moment only.
  const saved = { ...process.env };
  Object.assign(process.env, v.env ?? {});
  const server = SERVER ? ['address: 127.0.0.1', `port: ${await freePort()}`, 'authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}', 'authorization: {mode: AlwaysAllow}'] : undefined;
  const k = await startClusterKubelet({ endpoint: process.env.KUBELET_IT_CRI! }, api, dir, node, [], { nodeFlags: v.nodeFlags, ...(server ? { server } : {}), ...(v.bin ? { bin: v.bin } : {}) })
    .finally(() => {
      for (const key of Object.keys(v.env ?? {})) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    });
  return {
    pid: k.pid, node,
    ready: () => {
      if (k.child.exitCode !== null) throw new Error(`${node} exited:\n${k.stderr().slice(-2000)}`);
      return isNodeReady(api, node);
    },
    stop: () => k.stop(),
  };
}

async function oneRun(api: TestApiServer, work: string, run: number, variants: Variant[], last: boolean, turn = ''): Promise<Map<string, Record<string, number>>> {
  const started = new Map<string, Running>();
  const out = new Map<string, Record<string, number>>();
  try {
    // In a turning order, so no variant always starts first on a busy machine.
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + run) % variants.length]!;
      const node = `idlemem-${v.name}-${run}${turn}`;
      const dir = join(work, node);
      mkdirSync(dir);
      started.set(v.name, await startVariant(v, api, dir, node));
    }
    const t0 = Date.now();
    while (![...started.values()].every((r) => r.ready())) {
      if (Date.now() - t0 > 120_000) throw new Error('not every kubelet Ready within 120 s');
      await sleep(100);
    }
    const snapshots = async (when: string) => {
      const dir = heapSnapshotDir();
      if (!last || !dir) return;
      for (const [name, r] of started) process.stderr.write(`idlemem: ${name} ${when}: ${await takeHeapSnapshot(r.pid, dir)}\n`);
    };
    for (const [name, figures] of await idleWindow(started, '')) out.set(name, figures);
    if (PODS > 0) {
      // After the window's figures; a snapshot's writing swells RSS for what follows: compare a run without.
      await snapshots('idle, no pods');
      const kubelets = [...started].filter(([, r]) => r.node !== undefined);
      for (const [name, figures] of await podBurst(api, kubelets)) Object.assign(out.get(name)!, figures);
      for (const [name, figures] of await idleWindow(started, 'pods.')) Object.assign(out.get(name)!, figures);
      await snapshots(`idle, ${PODS} pods`);
      await deletePods(api, kubelets);
    } else {
      await snapshots('idle');
    }
  } finally {
    await Promise.all([...started.values()].map((r) => r.stop()));
    // The stopped kubelets' sandboxes would be in the next kubelets' relists, as if their own.
    if (PODS > 0) {
      const cri = createCriClient({ endpoint: process.env.KUBELET_IT_CRI! });
      try {
        await tearDownEverySandbox(cri);
      } finally {
        cri.close();
      }
    }
  }
  return out;
}

/** After the settle, each process's CPU over the window and its RSS at the end, keys prefixed. */
async function idleWindow(started: Map<string, Running>, prefix: string): Promise<Map<string, Record<string, number>>> {
  await sleep(SETTLE_MS);
  const cpu0 = new Map([...started].map(([name, r]) => [name, cpuSeconds(r.pid)]));
  await sleep(WINDOW_MS);
  const out = new Map<string, Record<string, number>>();
  for (const [name, r] of started) {
    const parts = rssPartsMiB(r.pid);
    out.set(name, {
      [`${prefix}rssMiB`]: rssMiB(r.pid), [`${prefix}rssAnonMiB`]: parts.anon, [`${prefix}rssFileMiB`]: parts.file,
      [`${prefix}cpuSecondsPerMinute`]: ((cpuSeconds(r.pid) - cpu0.get(name)!) * 60_000) / WINDOW_MS,
    });
  }
  return out;
}

type PodObject = { status?: { phase?: string } };

/** PODS pods on every kubelet's node at once (a namespace per node); each one's peak RSS and CPU until all of its own run. */
async function podBurst(api: TestApiServer, kubelets: [string, Running][]): Promise<Map<string, Record<string, number>>> {
  const cpu0 = new Map(kubelets.map(([name, r]) => [name, cpuSeconds(r.pid)]));
  const peak = new Map(kubelets.map(([name]) => [name, 0]));
  const done = new Map<string, Record<string, number>>();
  for (const [, r] of kubelets) {
    api.store.create('namespaces', { metadata: { name: r.node } });
    for (let i = 0; i < PODS; i++) {
      api.store.create('pods', { metadata: { name: `p${i}`, namespace: r.node }, spec: { nodeName: r.node, terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0', command: SLEEPER }] } });
    }
  }
  const t0 = Date.now();
  while (done.size < kubelets.length) {
    for (const [name, r] of kubelets) {
      if (done.has(name)) continue;
      peak.set(name, Math.max(peak.get(name)!, rssMiB(r.pid)));
      const running = api.store.list('pods', { namespace: r.node }).items.filter((p) => (p as PodObject).status?.phase === 'Running').length;
      if (running === PODS) done.set(name, { 'burst.peakRssMiB': peak.get(name)!, 'burst.cpuSeconds': cpuSeconds(r.pid) - cpu0.get(name)!, 'burst.allRunningMs': Date.now() - t0 });
    }
    if (Date.now() - t0 > 180_000) throw new Error(`not every kubelet's ${PODS} pods Running within 180 s`);
    await sleep(100);
  }
  return done;
}

/** Deletes every kubelet's pods as kubectl does and waits until they are gone from the API (the kubelet removed them). */
async function deletePods(api: TestApiServer, kubelets: [string, Running][]): Promise<void> {
  for (const [, r] of kubelets) for (let i = 0; i < PODS; i++) api.store.delete('pods', r.node!, `p${i}`, { gracePeriodSeconds: 2 });
  const t0 = Date.now();
  while (kubelets.some(([, r]) => api.store.list('pods', { namespace: r.node }).items.length > 0)) {
    if (Date.now() - t0 > 180_000) throw new Error('pods still in the API 180 s after their deletion');
    await sleep(200);
  }
}

/**
 * A run of one kubelet at a time beside the bare process, the kubelets in turns (in a turning order
 * from run to run): each has the runtime to itself, so its relists hold its own pods alone.
 */
async function apart(api: TestApiServer, work: string, run: number, variants: Variant[], last: boolean): Promise<Map<string, Record<string, number>>> {
  const kubelets = variants.filter((v) => !v.bare);
  const bare = variants.filter((v) => v.bare);
  const out = new Map<string, Record<string, number>>();
  for (let i = 0; i < kubelets.length; i++) {
    const v = kubelets[(i + run) % kubelets.length]!;
    const figures = await oneRun(api, work, run, [...bare, v], last, `-${i}`);
    out.set(v.name, figures.get(v.name)!);
    // The bare process of the last turn stands for the run's.
    for (const b of bare) out.set(b.name, figures.get(b.name)!);
  }
  return out;
}

export async function benchIdleMem(): Promise<Record<string, number | string>> {
  if (!process.env.KUBELET_IT_CRI) return { skipped: 'no containerd: KUBELET_IT_CRI is unset (.ci/containerd/up.sh)' };
  const only = (process.env.KUBELET_BENCH_IDLEMEM_VARIANTS ?? '').split(',').filter(Boolean);
  const baseline = (process.env.KUBELET_BENCH_IDLEMEM_BASELINE ?? '').split(',').filter(Boolean);
  const variants = [
    ...VARIANTS.filter((v) => v.bare || only.length === 0 || only.includes(v.name)),
    ...baseline.map((dir): Variant => ({ name: basename(dir), nodeFlags: KUBELET_NODE_FLAGS, bin: resolve(dir, 'kubelet.js') })),
  ];
  const samples = new Map<string, number[]>();
  const api = await startTestApiServer();
  const work = mkdtempSync(join(tmpdir(), 'kts-idlemem-'));
  try {
    for (let run = 0; run < RUNS; run++) {
      const figures = APART ? await apart(api, work, run, variants, run === RUNS - 1) : await oneRun(api, work, run, variants, run === RUNS - 1);
      process.stderr.write(`idlemem: run ${run + 1}: ${JSON.stringify(Object.fromEntries(figures))}\n`);
      const bare = figures.get('bare')!.rssMiB!;
      for (const [name, f] of figures) {
        for (const [k, v] of Object.entries({ ...f, ...(name === 'bare' ? {} : { rssOverBareMiB: f.rssMiB! - bare }) })) {
          samples.set(`${name}.${k}`, [...(samples.get(`${name}.${k}`) ?? []), v]);
        }
      }
    }
  } finally {
    await api.close();
    rmSync(work, { recursive: true, force: true });
  }
  const out: Record<string, number | string> = { runs: RUNS, settleSeconds: SETTLE_MS / 1000, windowSeconds: WINDOW_MS / 1000 };
  for (const v of variants) {
    const env = Object.entries(v.env ?? {}).map(([k, value]) => `${k}=${value} `).join('');
    out[`${v.name}.nodeFlags`] = env + (v.nodeFlags.join(' ') || '(none)');
  }
  for (const v of variants) {
    for (const [key, values] of samples) {
      if (key.startsWith(`${v.name}.`)) out[key] = round(median(values), key.endsWith('cpuSecondsPerMinute') ? 3 : 1);
    }
  }
  return out;
}
