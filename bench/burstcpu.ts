/**
 * What the side-by-side bench's 30-pod burst costs kubelet-ts in CPU, this build against another
 * (`npm run bench -- burstcpu`): the same real control plane and containerd as sidebyside.ts, turns
 * of the two builds alternating (which goes first too), each turn a fresh node: started → Node Ready
 * and its Lease, a settle, the burst of sidebyside-turn.ts (CPU from the POSTs to all 30 Running),
 * then the node cleaned at once (no graceful deletion, no workloads). Prints each build's median and
 * the ratio head / baseline; each turn's figures and the load average go to stderr.
 * KUBELET_BENCH_BURSTCPU_BASELINE=DIR: the other build's bundle, a copy of dist/bundle kept inside the
 * repository (its packages resolve from node_modules above it); without it, head alone.
 * KUBELET_BENCH_BURSTCPU_HEAD_ARGS / _BASELINE_ARGS: more kubelet flags for either, space-separated
 * (a baseline with flags alone runs this build again, e.g. `--event-log=` to weigh the journal);
 * _HEAD_NODE_FLAGS / _BASELINE_NODE_FLAGS: node's own options after the bundle's #! line's, which they
 * override (e.g. `--max-semi-space-size=2` to weigh the young generation against the burst's CPU);
 * _HEAD_NODE / _BASELINE_NODE: the node executable either runs on (this one's by default), to weigh
 * one Node release against another; _HEAD_ENV / _BASELINE_ENV: NAME=VALUE words added to either's
 * environment (e.g. `MALLOC_ARENA_MAX=2` to weigh the C library's allocator against the peak RSS).
 * KUBELET_BENCH_BURSTCPU_REPS=N (5) bursts of each; _SETTLE_SECONDS=S (10) between Ready and the burst;
 * _WARM_BURSTS=N (0) bursts run and deleted before the settle, each one's CPU and deletion times
 * (as sidebyside's teardown) printed as `warmN`; _WARM_PODS=N (30) pods in each (one pod weighs how
 * much of a fresh process's first burst is its first pod's).
 * KUBELET_BENCH_CPU_PROF=DIR profiles each daemon and prints each burst's span on the profile's clock
 * (scripts/cpu-profile-categories.ts cuts a profile to it); KUBELET_BENCH_KEEP_JOURNAL=DIR copies each
 * turn's event log there. KUBELET_BENCH_HEAP_SNAPSHOTS=DIR: a heap snapshot of the daemon before its
 * first burst and after each deletion (after the settle), to compare with `node dist/bench/heap-diff.js`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KubeLab } from '../test/support/kube-lab-up.js';
import { alternateBuilds, medians, realLabMissing } from './alternating-builds.js';
import { KUBELET_BIN } from './kubelet-bin.js';
import { criCalls } from './kubelet-cri-calls.js';
import { prepareNode, startKubeletTs, type KubeletTsStart } from './sidebyside-kubelets.js';
import { BURST, burst, cleanUp, readyNamespace, startUp, teardown, type TurnOptions } from './sidebyside-turn.js';
import { heapSnapshotDir, heapSnapshotFlags, takeHeapSnapshot } from './heap-snapshot.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';

const REPS = Number(process.env.KUBELET_BENCH_BURSTCPU_REPS ?? 5);
const SETTLE_MS = Number(process.env.KUBELET_BENCH_BURSTCPU_SETTLE_SECONDS ?? 10) * 1000;
/** Bursts run and deleted before the measured one: how much of a burst's CPU is a fresh process's warm-up. */
const WARM_BURSTS = Number(process.env.KUBELET_BENCH_BURSTCPU_WARM_BURSTS ?? 0);
const WARM_PODS = Number(process.env.KUBELET_BENCH_BURSTCPU_WARM_PODS ?? BURST);

export async function benchBurstCpu(): Promise<Record<string, number | string>> {
  const missing = realLabMissing();
  if (missing) return { skipped: missing };
  const baseline = process.env.KUBELET_BENCH_BURSTCPU_BASELINE;
  const words = (name: string) => (process.env[`KUBELET_BENCH_BURSTCPU_${name}`] ?? '').split(' ').filter(Boolean);
  const build = (name: string, bin: string): Build => ({
    name,
    start: {
      bin, args: words(`${name.toUpperCase()}_ARGS`), nodeFlags: [...words(`${name.toUpperCase()}_NODE_FLAGS`), ...heapSnapshotFlags()],
      node: process.env[`KUBELET_BENCH_BURSTCPU_${name.toUpperCase()}_NODE`] || process.execPath,
      env: Object.fromEntries(words(`${name.toUpperCase()}_ENV`).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)])),
    },
  });
  const withBaseline = baseline || ['BASELINE_ARGS', 'BASELINE_NODE_FLAGS', 'BASELINE_ENV'].some((w) => words(w).length > 0) || process.env.KUBELET_BENCH_BURSTCPU_BASELINE_NODE;
  const builds: Build[] = [
    build('head', KUBELET_BIN),
    ...(withBaseline ? [build('baseline', baseline ? resolve(baseline, 'kubelet.js') : KUBELET_BIN)] : []),
  ];
  const samples = await alternateBuilds('burstcpu', builds, REPS, turn);
  const out: Record<string, number | string> = { reps: REPS, settleSeconds: SETTLE_MS / 1000, warmBursts: WARM_BURSTS, ...medians(samples, 2) };
  if (builds.length > 1) {
    for (const [key, values] of samples) {
      if (!key.startsWith('head.')) continue;
      const base = samples.get(`baseline.${key.slice('head.'.length)}`);
      if (base) out[`head/baseline ${key.slice('head.'.length)}`] = round(median(values) / median(base), 2);
    }
  }
  return out;
}

/** The process's established TCP connections to `port` (ss -tnp). */
function connectionsTo(pid: number, port: string): number {
  const lines = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' }).split('\n');
  return lines.filter((l) => l.includes(`pid=${pid},`)).length;
}

interface Build { name: string; start: KubeletTsStart }

async function turn(lab: KubeLab, work: string, { name, start }: Build, rep: number): Promise<Record<string, number>> {
  const node = `bcpu-${name}-${rep}`;
  const setup = await prepareNode(lab, work, node);
  const o: TurnOptions = {
    lab, setup, namespace: node, image: process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0', idleMs: 0,
    start: () => startKubeletTs(setup, start),
  };
  const out: Record<string, number> = {};
  await readyNamespace(lab, node);
  const kubelet = await o.start();
  try {
    await startUp(o, kubelet, out);
    const snapshots = heapSnapshotDir();
    const snapshot = async (when: string) => {
      if (snapshots) process.stderr.write(`burstcpu: ${node} heap ${when}: ${await takeHeapSnapshot(kubelet.pid, snapshots)}\n`);
    };
    if (WARM_BURSTS > 0) await snapshot('before the first burst');
    for (let i = 0; i < WARM_BURSTS; i++) {
      const warm: Record<string, number> = {};
      await burst(o, kubelet, warm, WARM_PODS);
      await teardown(o, kubelet, warm, WARM_PODS);
      out[`warm${i + 1}.cpuSeconds`] = warm['burst.cpuSeconds']!;
      // How long its graceful deletion took: the containers, sandboxes and API objects gone.
      for (const [key, ms] of Object.entries(warm)) if (key.startsWith('teardown.')) out[`warm${i + 1}.${key.slice('teardown.'.length)}`] = ms;
    }
    await sleep(SETTLE_MS);
    if (WARM_BURSTS > 0) await snapshot(`after ${WARM_BURSTS} bursts deleted`);
    await burst(o, kubelet, out);
    // Connections the kubelet holds to the API server after the burst: keep-alive keeps each it opened.
    out['burst.apiConnections'] = connectionsTo(kubelet.pid, new URL(lab.server).port);
    // The CRI calls of the start-up and the burst, by operation, from the kubelet's own counter.
    for (const [op, n] of await criCalls(lab, kubelet.port)) out[`cri.${op}`] = n;
    const keep = process.env.KUBELET_BENCH_KEEP_JOURNAL;
    if (keep) {
      await kubelet.stop();
      const events = join(setup.dir, 'root', 'events');
      // A turn run with `--event-log=` has no log to keep.
      if (existsSync(events)) cpSync(events, join(keep, node), { recursive: true });
    }
  } finally {
    await cleanUp(o, kubelet).catch((err: unknown) => process.stderr.write(`burstcpu: cleaning up ${node}: ${String(err)}\n`));
  }
  return out;
}
