/**
 * What an idle kubelet-ts allocates and burns on the real control plane and containerd
 * (`npm run bench -- idlealloc`): per turn a fresh node (as burstcpu.ts), started to Ready, a settle,
 * at 0 pods a window for CPU a minute and RSS at its end, then one profiled through the inspector (a
 * CPU profile, and a sampling heap profile that keeps the objects the GC collected, so its total is
 * what was allocated); the 30-pod burst of sidebyside-turn.ts, a settle, and the same two windows
 * at 30 idle pods. The profilers cost CPU: the CPU figure is the unprofiled window's. With the RSS,
 * V8's heap committed and used (process.memoryUsage through the inspector). V8 gives back a burst's
 * heap only once the process allocates little, so the bytes a second at 30 idle pods decide its RSS.
 * KUBELET_BENCH_IDLEALLOC_BASELINE=DIR: another build's bundle (inside the repository), in turns with
 * this one. _REPS=N (1) turns of each; _SETTLE_SECONDS (30); _SECONDS (60) of the CPU window,
 * _PROFILE_SECONDS (30) of the profiled one. KUBELET_BENCH_KEEP_JOURNAL=DIR copies each turn's event log there.
 * KUBELET_BENCH_IDLEALLOC_PROFILES=DIR keeps the profiles there (`.cpuprofile`, `.heapprofile`); read
 * them with `node dist/bench/heap-profile-top.js` and `node dist/scripts/cpu-profile-categories.js`.
 * The burst is profiled too (its allocation alone: `burst.allocatedMB`, `-burst.heapprofile`), which
 * costs its CPU and times: read those from burstcpu.ts or sidebyside.ts.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KubeLab } from '../test/support/kube-lab-up.js';
import { freePort } from './free-port.js';
import { openInspector, type InspectorSession } from './inspector-session.js';
import { alternateBuilds, medians, realLabMissing } from './alternating-builds.js';
import { KUBELET_BIN } from './kubelet-bin.js';
import { cpuSeconds, rssMiB } from './proc-usage.js';
import { prepareNode, startKubeletTs, type StartedKubelet } from './sidebyside-kubelets.js';
import { burst, cleanUp, readyNamespace, startUp, type TurnOptions } from './sidebyside-turn.js';
import { sleep } from './static-pod-fleet.js';
import { round } from './stats.js';

const REPS = Number(process.env.KUBELET_BENCH_IDLEALLOC_REPS ?? 1);
const SETTLE_MS = Number(process.env.KUBELET_BENCH_IDLEALLOC_SETTLE_SECONDS ?? 30) * 1000;
const WINDOW_MS = Number(process.env.KUBELET_BENCH_IDLEALLOC_SECONDS ?? 60) * 1000;
const PROFILE_MS = Number(process.env.KUBELET_BENCH_IDLEALLOC_PROFILE_SECONDS ?? 30) * 1000;

interface Build { name: string; bin: string }
interface HeapNode { selfSize: number; children: HeapNode[] }

export async function benchIdleAlloc(): Promise<Record<string, number | string>> {
  const missing = realLabMissing();
  if (missing) return { skipped: missing };
  const baseline = process.env.KUBELET_BENCH_IDLEALLOC_BASELINE;
  const builds: Build[] = [{ name: 'head', bin: KUBELET_BIN }, ...(baseline ? [{ name: 'baseline', bin: resolve(baseline, 'kubelet.js') }] : [])];
  const samples = await alternateBuilds('idlealloc', builds, REPS, turn);
  return { reps: REPS, settleSeconds: SETTLE_MS / 1000, windowSeconds: WINDOW_MS / 1000, profileSeconds: PROFILE_MS / 1000, ...medians(samples, 3) };
}

async function turn(lab: KubeLab, work: string, build: Build, rep: number): Promise<Record<string, number>> {
  const node = `ialloc-${build.name}-${rep}`;
  const setup = await prepareNode(lab, work, node);
  const inspectPort = await freePort();
  const o: TurnOptions = {
    lab, setup, namespace: node, image: process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0', idleMs: 0,
    start: () => startKubeletTs(setup, { bin: build.bin, nodeFlags: [`--inspect=127.0.0.1:${inspectPort}`] }),
  };
  const out: Record<string, number> = {};
  await readyNamespace(lab, node);
  const kubelet = await o.start();
  let session: InspectorSession | undefined;
  try {
    await startUp(o, kubelet, out);
    session = await openInspector(inspectPort);
    await sleep(SETTLE_MS);
    await window(session, kubelet, 'idle', node, out);
    await heapSampling(session, () => burst(o, kubelet, out), 'burst', node, out);
    await sleep(SETTLE_MS);
    await window(session, kubelet, 'pods', node, out);
    const keep = process.env.KUBELET_BENCH_KEEP_JOURNAL;
    if (keep) {
      await kubelet.stop();
      cpSync(join(setup.dir, 'root', 'events'), join(keep, node), { recursive: true });
    }
  } finally {
    session?.close();
    await cleanUp(o, kubelet).catch((err: unknown) => process.stderr.write(`idlealloc: cleaning up ${node}: ${String(err)}\n`));
  }
  return out;
}

/** CPU a minute over one window, RSS at its end; then bytes allocated a second over a profiled one. */
async function window(session: InspectorSession, kubelet: StartedKubelet, label: string, node: string, out: Record<string, number>): Promise<void> {
  const cpu0 = cpuSeconds(kubelet.pid);
  await sleep(WINDOW_MS);
  out[`${label}.cpuSecondsPerMinute`] = round(((cpuSeconds(kubelet.pid) - cpu0) * 60_000) / WINDOW_MS, 3);
  out[`${label}.rssMiB`] = round(rssMiB(kubelet.pid), 1);
  // Of the RSS, what V8's heap has committed and what is live in it.
  const { result } = await session.send<{ result: { value: { heapTotal: number; heapUsed: number } } }>('Runtime.evaluate', { expression: 'process.memoryUsage()', returnByValue: true });
  out[`${label}.heapTotalMiB`] = round(result.value.heapTotal / 2 ** 20, 1);
  out[`${label}.heapUsedMiB`] = round(result.value.heapUsed / 2 ** 20, 1);
  await session.send('Profiler.enable');
  await session.send('Profiler.start');
  const allocated = await heapSampling(session, () => sleep(PROFILE_MS), label, node, out);
  const { profile: cpu } = await session.send<{ profile: unknown }>('Profiler.stop');
  out[`${label}.allocatedMBPerSecond`] = round(allocated / 1e6 / (PROFILE_MS / 1000), 3);
  keepProfile(`${node}-${label}.cpuprofile`, cpu);
}

/** Bytes allocated while `work` runs (a sampling profile keeping what the GC collected), as `<label>.allocatedMB`. */
async function heapSampling(session: InspectorSession, work: () => Promise<unknown>, label: string, node: string, out: Record<string, number>): Promise<number> {
  await session.send('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await work();
  const { profile: heap } = await session.send<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
  const total = (n: HeapNode): number => n.selfSize + n.children.reduce((s, c) => s + total(c), 0);
  const bytes = total(heap.head);
  out[`${label}.allocatedMB`] = round(bytes / 1e6, 1);
  keepProfile(`${node}-${label}.heapprofile`, heap);
  return bytes;
}

function keepProfile(name: string, profile: unknown): void {
  const dir = process.env.KUBELET_BENCH_IDLEALLOC_PROFILES;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), JSON.stringify(profile));
}
