/**
 * Pod lifecycle benchmarks: how fast the kubelet starts pods and what it costs at idle, set beside
 * the Go kubelet's figures. N static pods from a manifest directory, through the real
 * binary, on the embedded runtime (110 pods, the Kubernetes per-node limit, and 30 pods to set
 * beside the Go kubelet's figures in docs/BENCHMARKS.md), and on containerd too when KUBELET_IT_CRI names one.
 *
 * Per run: spawn → every pod's containers started (from the event log's wall clock), per-pod
 * manifest seen → containers started (p50/p99) and the kubelet's own share of it (the event log's
 * sync steps subtracted: see pod-start-timings.ts), peak RSS during the start, then after a settle
 * an idle window: VmRSS, CPU (utime+stime) over the window, PLEG relist durations; the embedded
 * runtime's shims' RSS and PSS. Then SIGTERM, and every pod removed through the runtime (the
 * containers outlive the kubelet, as in Go).
 */
import { join } from 'node:path';
import { detectCgroupLayout } from '../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../src/adapters/host/cgroupfs.js';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import { podStartTimings, relistTimings } from './pod-start-timings.js';
import { cpuSeconds, pidsWithCommandLine, pssMiB, rssMiB } from './proc-usage.js';
import { podRuns, sleep, withStaticPods, type Fleet, type PodRun } from './static-pod-fleet.js';
import { percentile, round } from './stats.js';

export interface PodsBenchOptions {
  /**
   * Seconds of the idle window (CPU, RSS, relists). Default 90: the longest resync period
   * (syncFrequency 60 s, jittered up to +50 %), so every pod's periodic resync falls in it once.
   * A 60 s window right after the start wave would miss most of the first round of resyncs (they
   * are due 60–90 s after the pods start, all together) and read low.
   */
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
  /**
   * Also run the largest count of each runtime with QoS and pod cgroups on (what they cost), right after
   * the same count without, under a cgroup root of the bench's own (made and removed here; root
   * only). Default: KUBELET_BENCH_PODS_QOS_CGROUPS=1.
   */
  qosCgroupsRuns?: boolean;
}

async function benchOneRun(run: PodRun, o: Required<PodsBenchOptions>): Promise<Record<string, number>> {
  const p = `${run.label}.`;
  let peakRss = 0;
  const { result, podsRemoved } = await withStaticPods(
    run,
    { startTimeoutSeconds: o.startTimeoutSeconds, onTick: (d) => { peakRss = Math.max(peakRss, rssMiB(d.pid)); } },
    (fleet) => measure(fleet, p, peakRss, o),
  );
  return { ...result, [`${p}podsRemoved`]: podsRemoved };
}

async function measure({ run, paths, daemon }: Fleet, p: string, peakRss: number, o: Required<PodsBenchOptions>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const pid = daemon.pid;
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
  // What the journal costs on disk at idle (the derived action records included), per minute
  // and over a day; rotation caps it at 8 × 64 MiB whatever the rate.
  const idleBytes = records.filter((r) => {
    const at = Date.parse(r.wall);
    return at >= idleStart && at <= idleEnd;
  }).reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)) + 1, 0);
  out[`${p}idleJournalKiBPerMin`] = round((idleBytes / 1024) * (60 / o.idleSeconds), 1);
  out[`${p}idleJournal24hMiB`] = round((idleBytes / 2 ** 20) * ((24 * 3600) / o.idleSeconds), 0);
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
  return out;
}

export async function benchPods(options: PodsBenchOptions = {}): Promise<Record<string, number>> {
  const o: Required<PodsBenchOptions> = {
    idleSeconds: 90, settleSeconds: 10, startTimeoutSeconds: 300, embeddedPods: [30, 110], containerdPods: [30, 110], v8DefaultsRun: true,
    qosCgroupsRuns: process.env.KUBELET_BENCH_PODS_QOS_CGROUPS === '1', ...options,
  };
  const runs = podRuns('pods', o.embeddedPods, o.containerdPods);
  if (o.qosCgroupsRuns) {
    for (const base of [...runs]) {
      const largest = base.endpoint === 'embedded' ? Math.max(...o.embeddedPods) : Math.max(...o.containerdPods);
      if (base.pods !== largest) continue;
      runs.splice(runs.indexOf(base) + 1, 0, { ...base, label: `${base.label}QosCgroups`, cgroupRoot: BENCH_CGROUP_ROOT });
    }
  }
  // The largest embedded run again under V8's defaults, right after it: what the executable's V8
  // options (src/bin/node-flags.ts) change, measured side by side.
  const largest = Math.max(...o.embeddedPods);
  if (o.v8DefaultsRun && Number.isFinite(largest)) {
    runs.splice(o.embeddedPods.length, 0, { label: `embedded${largest}V8Defaults`, pods: largest, endpoint: 'embedded', v8Defaults: true });
  }
  const out: Record<string, number> = { idleSeconds: o.idleSeconds };
  const cgroups = o.qosCgroupsRuns ? new Cgroupfs(await detectCgroupLayout()) : null;
  await cgroups?.create(BENCH_CGROUP_ROOT, {});
  try {
    for (const run of runs) Object.assign(out, await benchOneRun(run, o));
  } finally {
    await cgroups?.destroy(BENCH_CGROUP_ROOT);
  }
  for (const run of runs.filter((r) => r.cgroupRoot)) {
    const base = run.label.replace(/QosCgroups$/, '');
    const ratio = (key: string) => round(out[`${run.label}.${key}`]! / out[`${base}.${key}`]!, 2);
    out[`${run.label}.idleCpuPercentOfCore/withoutCgroups`] = ratio('idleCpuPercentOfCore');
    out[`${run.label}.idleRssMiB/withoutCgroups`] = ratio('idleRssMiB');
  }
  return out;
}

/** The --cgroup-root of the QoS cgroup runs: the bench's own, never the host's /kubepods. */
const BENCH_CGROUP_ROOT = `/kubelet-ts-bench-${process.pid}`;
