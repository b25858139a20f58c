/**
 * Pod lifecycle benchmarks (issue 5): N static pods from a manifest directory, through the real
 * binary, on the embedded runtime (110 pods, the Kubernetes per-node limit, and 30 pods to set
 * beside ANCHORS.md's Go figures), and on containerd too when KUBELET_IT_CRI names one.
 *
 * Per run: spawn → every pod's containers started (from the event log's wall clock), per-pod
 * manifest seen → containers started (p50/p99) and the kubelet's own share of it (the event log's
 * sync steps subtracted: see pod-start-timings.ts), peak RSS during the start, then after a settle
 * an idle window: VmRSS, CPU (utime+stime) over the window, PLEG relist durations; the embedded
 * runtime's shims' RSS and PSS. Then SIGTERM, and every pod removed through the runtime (the
 * containers outlive the kubelet, as in Go).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../src/adapters/embedded-runtime/index.js';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import type { CriClient } from '../src/ports/cri.js';
import { tearDownSandbox } from './cri-fixtures.js';
import { debugPods, isRunning, startDaemon, type DaemonPaths, type RunningDaemon } from './kubelet-daemon.js';
import { podStartTimings, relistTimings } from './pod-start-timings.js';
import { cpuSeconds, pidsWithCommandLine, pssMiB, rssMiB } from './proc-usage.js';
import { percentile, round } from './stats.js';

export interface PodsBenchOptions {
  /** Seconds of the idle window (CPU, RSS, relists). */
  idleSeconds?: number;
  /** Seconds between all pods running and the idle window. */
  settleSeconds?: number;
  /** Give up on a run whose pods are not all running by then. */
  startTimeoutSeconds?: number;
  /** Pod counts run on the embedded runtime, in order. */
  embeddedPods?: number[];
  /** Pod counts run on containerd when KUBELET_IT_CRI is set, in order. */
  containerdPods?: number[];
  /** Also run the largest embedded count under V8's default options (default true). */
  v8DefaultsRun?: boolean;
}

interface Run {
  label: string;
  pods: number;
  /** `embedded`, or a containerd socket. */
  endpoint: string;
  /** V8's own defaults instead of the executable's options (node-flags.ts), to show what they do. */
  v8Defaults?: boolean;
}

/** The test pod of ANCHORS.md: one busybox container that sleeps until SIGTERM, image never pulled. */
function manifest(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 3,
      containers: [{
        name: 'main', image: 'kubelet-ts.local/busybox:1.0', imagePullPolicy: 'Never',
        command: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'],
      }],
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitAllRunning(daemon: RunningDaemon, n: number, timeoutMs: number, onTick: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    onTick();
    const running = (await debugPods(daemon).catch(() => [])).filter(isRunning).length;
    if (running >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${running}/${n} pods running after ${timeoutMs} ms\n${daemon.stderrTail()}`);
    await sleep(250);
  }
}

/** The runtime the daemon used, for removing what it left (a fresh embedded runtime on its state dir). */
async function connectRuntime(run: Run, paths: DaemonPaths): Promise<{ cri: CriClient; close: () => Promise<void> }> {
  if (run.endpoint !== 'embedded') {
    const cri = createCriClient({ endpoint: run.endpoint });
    return { cri, close: async () => cri.close() };
  }
  const runtime = await startEmbeddedRuntime({ socketPath: join(paths.dir, 'cleanup.sock'), stateDir: join(paths.root, 'embedded-runtime') });
  const cri = createCriClient({ endpoint: runtime.endpoint });
  return { cri, close: async () => { cri.close(); await runtime.close(); } };
}

async function removePods(run: Run, paths: DaemonPaths, nodeName: string): Promise<number> {
  const { cri, close } = await connectRuntime(run, paths);
  try {
    const ours = (await cri.runtime.listPodSandbox()).filter((s) => s.metadata.name.endsWith(`-${nodeName}`));
    for (let i = 0; i < ours.length; i += 8) await Promise.all(ours.slice(i, i + 8).map((s) => tearDownSandbox(cri, s.id)));
    return ours.length;
  } finally {
    await close();
  }
}

async function benchOneRun(run: Run, o: Required<PodsBenchOptions>): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-pods-'));
  const paths: DaemonPaths = { dir, manifests: join(dir, 'manifests'), logs: join(dir, 'logs'), root: join(dir, 'root') };
  mkdirSync(paths.manifests);
  const nodeName = `bench-${randomUUID().slice(0, 8)}`;
  for (let i = 0; i < run.pods; i++) {
    const name = `bench-${String(i).padStart(3, '0')}`;
    writeFileSync(join(paths.manifests, `${name}.json`), manifest(name));
  }
  const p = `${run.label}.`;
  const out: Record<string, number> = {};
  let daemon: RunningDaemon | undefined;
  try {
    daemon = await startDaemon(paths, run.endpoint, nodeName, run.v8Defaults ? [] : undefined);
    const pid = daemon.pid;
    let peakRss = 0;
    await waitAllRunning(daemon, run.pods, o.startTimeoutSeconds * 1000, () => { peakRss = Math.max(peakRss, rssMiB(pid)); });
    out[`${p}peakRssDuringStartMiB`] = round(peakRss, 1);

    await sleep(o.settleSeconds * 1000);
    const idleStart = Date.now();
    const cpu0 = cpuSeconds(pid);
    const rss: number[] = [];
    const idleEnd = Date.now() + o.idleSeconds * 1000;
    while (Date.now() < idleEnd) {
      rss.push(rssMiB(pid));
      await sleep(Math.min(5_000, Math.max(0, idleEnd - Date.now())));
    }
    const cpu = cpuSeconds(pid) - cpu0;
    rss.push(rssMiB(pid));
    out[`${p}idleRssMiB`] = round(percentile(rss, 50), 1);
    out[`${p}idleCpuSecondsPer60s`] = round((cpu * 60) / o.idleSeconds, 2);
    out[`${p}idleCpuPercentOfCore`] = round((cpu / o.idleSeconds) * 100, 2);
    if (run.endpoint === 'embedded') {
      const shims = pidsWithCommandLine(join(paths.root, 'embedded-runtime', 'shims'));
      out[`${p}shims`] = shims.length;
      out[`${p}shimsTotalRssMiB`] = round(shims.reduce((a, s) => a + rssMiB(s), 0), 0);
      out[`${p}shimsTotalPssMiB`] = round(shims.reduce((a, s) => a + pssMiB(s), 0), 0);
    }

    await daemon.stop();
    const records = readJournal(join(paths.root, 'events', 'latest.jsonl')).records;
    const starts = podStartTimings(records);
    if (starts.length !== run.pods) throw new Error(`${run.label}: the event log shows ${starts.length} of ${run.pods} pods started`);
    const lastStarted = Math.max(...starts.map((s) => s.startedWallMs));
    out[`${p}spawnToAllStartedMs`] = lastStarted - daemon.spawnedAtMs;
    const total = starts.map((s) => s.totalMs);
    const own = starts.map((s) => s.kubeletMs);
    const runtime = starts.map((s) => s.runtimeMs);
    Object.assign(out, {
      [`${p}podStartP50Ms`]: percentile(total, 50), [`${p}podStartP99Ms`]: percentile(total, 99),
      [`${p}kubeletShareP50Ms`]: percentile(own, 50), [`${p}kubeletShareP99Ms`]: percentile(own, 99),
      [`${p}runtimeCallsP50Ms`]: percentile(runtime, 50), [`${p}runtimeCallsP99Ms`]: percentile(runtime, 99),
    });
    // Relists begun in the idle window: the steady state at this pod count. During the start wave
    // they queue behind the pods' syncs (and, embedded, the runtime's own work): reported apart.
    const relists = relistTimings(records);
    const idle = relists.filter((r) => r.wallMs - r.durationMs >= idleStart && r.wallMs <= idleEnd && (r.pods === null || r.pods === run.pods)).map((r) => r.durationMs);
    const duringStart = relists.filter((r) => r.wallMs <= lastStarted).map((r) => r.durationMs);
    Object.assign(out, {
      [`${p}idleRelists`]: idle.length,
      [`${p}idleRelistP50Ms`]: percentile(idle, 50), [`${p}idleRelistP99Ms`]: percentile(idle, 99), [`${p}idleRelistMaxMs`]: Math.max(...idle),
      [`${p}relistMaxDuringStartMs`]: Math.max(0, ...duringStart),
    });
  } finally {
    await daemon?.stop();
    out[`${p}podsRemoved`] = await removePods(run, paths, nodeName);
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export async function benchPods(options: PodsBenchOptions = {}): Promise<Record<string, number>> {
  const o: Required<PodsBenchOptions> = {
    idleSeconds: 60, settleSeconds: 10, startTimeoutSeconds: 300, embeddedPods: [30, 110], containerdPods: [30, 110], v8DefaultsRun: true, ...options,
  };
  const runs: Run[] = o.embeddedPods.map((pods) => ({ label: `embedded${pods}`, pods, endpoint: 'embedded' }));
  // The largest embedded run again under V8's defaults, right after: what the executable's V8
  // options (src/bin/node-flags.ts) change, measured side by side.
  const largest = Math.max(...o.embeddedPods);
  if (o.v8DefaultsRun && Number.isFinite(largest)) runs.push({ label: `embedded${largest}V8Defaults`, pods: largest, endpoint: 'embedded', v8Defaults: true });
  const containerd = process.env.KUBELET_IT_CRI;
  if (containerd) runs.push(...o.containerdPods.map((pods) => ({ label: `containerd${pods}`, pods, endpoint: containerd })));
  else process.stdout.write('pods: KUBELET_IT_CRI is unset: embedded runtime only\n');
  const out: Record<string, number> = { idleSeconds: o.idleSeconds };
  for (const run of runs) Object.assign(out, await benchOneRun(run, o));
  return out;
}
