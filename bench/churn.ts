/**
 * A node for months, compressed (`npm run bench -- churn`): each kubelet in turn (the Go kubelet
 * of the lab and kubelet-ts, on one real control plane and one containerd, as `sidebyside` starts them)
 * runs waves of pods (churn-workloads.ts) until at least KUBELET_BENCH_CHURN_PODS (3000) have run
 * through it, then idles KUBELET_BENCH_CHURN_IDLE_SECONDS (60) with none. Sampled every 10 s
 * (churn-samples.ts). Prints per kubelet: pods run, each figure's slope per 1,000 pods over the last
 * two thirds, the figures at the end and what is left once the last pod is gone; writes the RSS and
 * heap chart to KUBELET_BENCH_CHURN_PLOT (test-artifacts/churn.svg) and every sample beside it (.json).
 * KUBELET_BENCH_CHURN_REPS=N alternates N turns of each (1); KUBELET_BENCH_CHURN_KUBELETS=go (or ts)
 * runs one kubelet's turns alone (a failed turn made again without an hour of the other). With KUBELET_BENCH_HEAP_SNAPSHOTS=DIR,
 * kubelet-ts's heap is written there once a third of the pods have run and again after the idle
 * window: what grew between the two is what a long-lived node would keep.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { kubeLabScripts, purgeKubeLab } from '../test/support/kube-lab-scripts.js';
import { requireLabBinary } from '../test/support/lab-bin.js';
import { upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { slopesPerThousandPods, type ChurnSample } from './churn-fit.js';
import { churnChart, type PlotSeries } from './churn-plot.js';
import { sampleNode, type SampledNode } from './churn-samples.js';
import { createChurnFixtures, runWave, type ChurnPlace } from './churn-workloads.js';
import { freePort } from './free-port.js';
import { heapSnapshotDir, heapSnapshotFlags, takeHeapSnapshot } from './heap-snapshot.js';
import { openInspector, type InspectorSession } from './inspector-session.js';
import { api, until } from './sidebyside-api.js';
import { prepareNode, startGoKubelet, startKubeletTs, type KubeletKind } from './sidebyside-kubelets.js';
import { cleanUp, readyNamespace, startUp, type TurnOptions } from './sidebyside-turn.js';
import { missing } from './sidebyside.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';

const TARGET_PODS = Number(process.env.KUBELET_BENCH_CHURN_PODS ?? 3000);
const REPS = Number(process.env.KUBELET_BENCH_CHURN_REPS ?? 1);
const KUBELETS = (process.env.KUBELET_BENCH_CHURN_KUBELETS ?? 'go,ts').split(',').map((k) => k.trim());
const IDLE_MS = Number(process.env.KUBELET_BENCH_CHURN_IDLE_SECONDS ?? 60) * 1000;
const PLOT = process.env.KUBELET_BENCH_CHURN_PLOT ?? join('test-artifacts', 'churn.svg');
const SAMPLE_EVERY_MS = 10_000;
/** Go's default podLogsDir, which the bench leaves as it is; kubelet-ts is given a directory of the turn's. */
const GO_POD_LOGS_DIR = '/var/log/pods';

interface ChurnTurn {
  kind: KubeletKind; rep: number; samples: ChurnSample[]; waveMs: number[]; leftover: Record<string, number>;
  /** Why the turn ended early; its samples until then are kept. */
  failed?: string;
}

export async function benchChurn(): Promise<Record<string, number | string>> {
  const scripts = kubeLabScripts();
  const skip = missing(scripts);
  if (skip) return { skipped: skip };
  if (!(TARGET_PODS >= 1) || !(REPS >= 1) || !(IDLE_MS > 0)) throw new Error('KUBELET_BENCH_CHURN_PODS and _REPS must be ≥ 1, _IDLE_SECONDS > 0');
  if (KUBELETS.length === 0 || KUBELETS.some((k) => k !== 'go' && k !== 'ts')) throw new Error(`KUBELET_BENCH_CHURN_KUBELETS: "go", "ts" or both, not ${KUBELETS.join(',')}`);
  const work = mkdtempSync(join(tmpdir(), 'kts-churn-'));
  const labDir = join(work, 'lab');
  mkdirSync(labDir);
  const turns: ChurnTurn[] = [];
  try {
    const lab = await upOnce(labDir, scripts);
    for (let rep = 1; rep <= REPS; rep++) {
      const order: KubeletKind[] = rep % 2 === 1 ? ['go', 'ts'] : ['ts', 'go'];
      for (const kind of order.filter((k) => KUBELETS.includes(k))) {
        // A turn is an hour at 3,000 pods: one that fails is reported and kept, and the others still run.
        const t: ChurnTurn = { kind, rep, samples: [], waveMs: [], leftover: {} };
        turns.push(t);
        await churnTurn(lab, work, t).catch((err: unknown) => {
          t.failed = err instanceof Error ? err.message.split('\n')[0] ?? err.message : String(err);
        });
        process.stderr.write(`churn: ${kind} rep ${rep}: ${t.samples.at(-1)?.podsRun ?? 0} pods, ${t.failed ? `failed: ${t.failed}` : `leftover ${JSON.stringify(t.leftover)}`}\n`);
        writeResults(turns);
      }
    }
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`churn: stopping the control plane: ${String(err)}\n`));
    rmSync(work, { recursive: true, force: true });
  }
  return summary(turns);
}

function summary(turns: readonly ChurnTurn[]): Record<string, number | string> {
  const out: Record<string, number | string> = { targetPods: TARGET_PODS, reps: REPS, idleSeconds: IDLE_MS / 1000 };
  const failed = turns.filter((t) => t.failed);
  if (failed.length > 0) out.failedTurns = failed.map((t) => `${t.kind} rep ${t.rep}: ${t.failed}`).join('; ');
  for (const kind of ['go', 'ts'] as const) {
    const mine = turns.filter((t) => t.kind === kind && !t.failed);
    const name = kind === 'go' ? 'go' : 'kubelet-ts';
    const med = (values: number[]) => round(median(values), 2);
    out[`${name}.podsRun`] = med(mine.map((t) => t.samples.at(-1)?.podsRun ?? 0));
    out[`${name}.waveRunP50Ms`] = med(mine.flatMap((t) => t.waveMs));
    const slopes = mine.map((t) => slopesPerThousandPods(t.samples));
    for (const figure of Object.keys(slopes[0] ?? {})) out[`${name}.slopePer1000Pods.${figure}`] = med(slopes.map((s) => s[figure] ?? 0));
    for (const figure of Object.keys(mine[0]?.samples.at(-1)?.figures ?? {})) out[`${name}.atEnd.${figure}`] = med(mine.map((t) => t.samples.at(-1)?.figures[figure] ?? 0));
    for (const figure of Object.keys(mine[0]?.leftover ?? {})) out[`${name}.leftover.${figure}`] = med(mine.map((t) => t.leftover[figure] ?? 0));
  }
  return out;
}

function writeResults(turns: readonly ChurnTurn[]): void {
  mkdirSync(dirname(PLOT), { recursive: true });
  const colors: Record<KubeletKind, string> = { go: '#1f77b4', ts: '#d62728' };
  const series: PlotSeries[] = turns.filter((t) => t.samples.length > 0).flatMap((t) => {
    const who = `${t.kind === 'go' ? 'Go kubelet' : 'kubelet-ts'}${REPS > 1 ? ` #${t.rep}` : ''}`;
    const rss: PlotSeries = { label: `${who} RSS`, color: colors[t.kind], samples: t.samples, figure: 'rssMiB' };
    // V8's heap is kubelet-ts's alone: the Go kubelet's /metrics has no heap gauge to set beside it.
    return t.kind === 'go' ? [rss] : [rss, { label: `${who} V8 heap used`, color: colors[t.kind], dashed: true, samples: t.samples, figure: 'heapUsedMiB' }];
  });
  writeFileSync(PLOT, churnChart(`RSS and heap over ${TARGET_PODS} pods run (npm run bench -- churn)`, series));
  writeFileSync(PLOT.replace(/\.svg$/, '') + '.json', JSON.stringify(turns, null, 1));
  process.stderr.write(`churn: chart ${PLOT}, samples ${PLOT.replace(/\.svg$/, '')}.json\n`);
}

/** Runs one kubelet's turn, filling `turn` as it goes so a failure keeps what was sampled. */
async function churnTurn(lab: KubeLab, work: string, turn: ChurnTurn): Promise<void> {
  const { kind, rep, samples, waveMs } = turn;
  const node = `churn-${kind}-${rep}`;
  const setup = await prepareNode(lab, work, node);
  const image = process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0';
  const o: TurnOptions = { lab, setup, namespace: node, image, idleMs: IDLE_MS, start: () => Promise.reject(new Error('started below')) };
  await readyNamespace(lab, node);
  const inspectPort = await freePort();
  const kubelet = kind === 'go'
    ? await startGoKubelet(requireLabBinary('kubelet'), setup)
    : await startKubeletTs(setup, { nodeFlags: [`--inspect=127.0.0.1:${inspectPort}`, ...heapSnapshotFlags()] });
  const snapshots = kind === 'ts' ? heapSnapshotDir() : undefined;
  const snapshot = async (when: string) => {
    if (snapshots) process.stderr.write(`churn: ${node} heap ${when}: ${await takeHeapSnapshot(kubelet.pid, snapshots)}\n`);
  };
  const cri = createCriClient({ endpoint: setup.endpoint });
  let inspector: InspectorSession | undefined;
  let podsRun = 0;
  let sampling: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  try {
    await startUp(o, kubelet, {});
    if (kind === 'ts') inspector = await openInspector(inspectPort);
    const sampled: SampledNode = {
      pid: kubelet.pid, root: join(setup.dir, 'root'), podLogsDir: kind === 'go' ? GO_POD_LOGS_DIR : join(setup.dir, 'logs'), namespace: node, cri,
      ...(inspector ? { inspector } : {}),
    };
    const sample = () => (sampling = sampling.then(async () => {
      samples.push({ t: round((performance.now() - kubelet.t0) / 1000, 1), podsRun, figures: await sampleNode(sampled) });
    }).catch((err: unknown) => {
      process.stderr.write(`churn: a sample failed: ${String(err)}\n`);
    }));
    await sample();
    timer = setInterval(() => void sample(), SAMPLE_EVERY_MS);
    await createChurnFixtures({ lab, namespace: node, node, image });
    const place: ChurnPlace = { lab, namespace: node, node, image };
    let snapshotTaken = false;
    for (let wave = 0; podsRun < TARGET_PODS; wave++) {
      const r = await runWave(place, kubelet, wave);
      podsRun += r.pods;
      waveMs.push(round(r.runMs + r.goneMs, 0));
      process.stderr.write(`churn: ${node} wave ${wave}: ${podsRun} pods run, ${round(r.runMs / 1000, 1)} s + ${round(r.goneMs / 1000, 1)} s\n`);
      if (!snapshotTaken && podsRun >= TARGET_PODS / 3) {
        snapshotTaken = true;
        await snapshot(`after ${podsRun} pods`);
      }
    }
    await api(lab, 'DELETE', `/apis/apps/v1/namespaces/${node}/deployments/churn-web`, { propagationPolicy: 'Background' });
    await until(kubelet, 'no pod left', async () => (await api<{ items: unknown[] }>(lab, 'GET', `/api/v1/namespaces/${node}/pods`)).items.length === 0, 120_000, 1000);
    // The idle window: what the kubelet still holds or cleans up with nothing to run.
    await sleep(IDLE_MS);
    clearInterval(timer);
    await sample();
    await snapshot(`after ${podsRun} pods and the idle window`);
    const end = samples.at(-1)?.figures ?? {};
    // cgroups against the turn's first sample: the runtime's cgroup roots may hold others' (other turns', tests').
    const cgroupsBefore = samples[0]?.figures.cgroups ?? 0;
    turn.leftover = {
      sandboxes: end.sandboxes ?? 0, containers: end.containers ?? 0, podDirs: end.podDirs ?? 0, podLogDirs: end.podLogDirs ?? 0,
      cgroups: (end.cgroups ?? 0) - cgroupsBefore,
    };
  } finally {
    clearInterval(timer);
    await sampling;
    inspector?.close();
    cri.close();
    await cleanUp(o, kubelet).catch((err: unknown) => process.stderr.write(`churn: cleaning up ${node}: ${String(err)}\n`));
  }
}
