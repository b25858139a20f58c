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
 * KUBELET_BENCH_HEAP_SNAPSHOTS=DIR: a heap snapshot of every process at the end of the last run
 * (compare the bare one with a kubelet's: `node dist/bench/heap-diff.js BARE KUBELET`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBELET_NODE_FLAGS } from '../src/bin/node-flags.js';
import { startTestApiServer, type TestApiServer } from '../test/apiserver/index.js';
import { isNodeReady, startClusterKubelet } from './cluster.js';
import { heapSnapshotDir, heapSnapshotFlags, takeHeapSnapshot } from './heap-snapshot.js';
import { cpuSeconds, rssMiB, rssPartsMiB } from './proc-usage.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';

const RUNS = Number(process.env.KUBELET_BENCH_IDLEMEM_RUNS ?? 5);
const SETTLE_MS = Number(process.env.KUBELET_BENCH_IDLEMEM_SETTLE_SECONDS ?? 20) * 1000;
const WINDOW_MS = Number(process.env.KUBELET_BENCH_IDLEMEM_SECONDS ?? 30) * 1000;

interface Variant {
  name: string;
  nodeFlags: readonly string[];
  /** A bare Node process instead of the kubelet. */
  bare?: boolean;
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
  { name: 'optimize-for-size', nodeFlags: [...KUBELET_NODE_FLAGS, '--optimize-for-size'] },
  { name: 'v8-pool-size-1', nodeFlags: [...KUBELET_NODE_FLAGS, '--v8-pool-size=1'] },
  { name: 'malloc-arena-max-2', nodeFlags: KUBELET_NODE_FLAGS, env: { MALLOC_ARENA_MAX: '2' } },
];

interface Running {
  pid: number;
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
  const k = await startClusterKubelet({ endpoint: process.env.KUBELET_IT_CRI! }, api, dir, node, [], v.nodeFlags)
    .finally(() => {
      for (const key of Object.keys(v.env ?? {})) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    });
  return {
    pid: k.pid,
    ready: () => {
      if (k.child.exitCode !== null) throw new Error(`${node} exited:\n${k.stderr().slice(-2000)}`);
      return isNodeReady(api, node);
    },
    stop: () => k.stop(),
  };
}

async function oneRun(api: TestApiServer, work: string, run: number, variants: Variant[], last: boolean): Promise<Map<string, Record<string, number>>> {
  const started = new Map<string, Running>();
  const out = new Map<string, Record<string, number>>();
  try {
    // In a turning order, so no variant always starts first on a busy machine.
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + run) % variants.length]!;
      const node = `idlemem-${v.name}-${run}`;
      const dir = join(work, node);
      mkdirSync(dir);
      started.set(v.name, await startVariant(v, api, dir, node));
    }
    const t0 = Date.now();
    while (![...started.values()].every((r) => r.ready())) {
      if (Date.now() - t0 > 120_000) throw new Error('not every kubelet Ready within 120 s');
      await sleep(100);
    }
    await sleep(SETTLE_MS);
    const cpu0 = new Map([...started].map(([name, r]) => [name, cpuSeconds(r.pid)]));
    await sleep(WINDOW_MS);
    for (const [name, r] of started) {
      const parts = rssPartsMiB(r.pid);
      out.set(name, {
        rssMiB: rssMiB(r.pid), rssAnonMiB: parts.anon, rssFileMiB: parts.file,
        cpuSecondsPerMinute: ((cpuSeconds(r.pid) - cpu0.get(name)!) * 60_000) / WINDOW_MS,
      });
    }
    const dir = heapSnapshotDir();
    if (last && dir) {
      for (const [name, r] of started) process.stderr.write(`idlemem: ${name}: ${await takeHeapSnapshot(r.pid, dir)}\n`);
    }
  } finally {
    await Promise.all([...started.values()].map((r) => r.stop()));
  }
  return out;
}

export async function benchIdleMem(): Promise<Record<string, number | string>> {
  if (!process.env.KUBELET_IT_CRI) return { skipped: 'no containerd: KUBELET_IT_CRI is unset (.ci/containerd/up.sh)' };
  const only = (process.env.KUBELET_BENCH_IDLEMEM_VARIANTS ?? '').split(',').filter(Boolean);
  const variants = VARIANTS.filter((v) => v.bare || only.length === 0 || only.includes(v.name));
  const samples = new Map<string, number[]>();
  const api = await startTestApiServer();
  const work = mkdtempSync(join(tmpdir(), 'kts-idlemem-'));
  try {
    for (let run = 0; run < RUNS; run++) {
      const figures = await oneRun(api, work, run, variants, run === RUNS - 1);
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
