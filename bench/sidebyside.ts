/**
 * The Go kubelet v1.26 and kubelet-ts side by side (`npm run bench -- sidebyside`): the same real
 * control plane (../shared/lab/kube/up.sh, started once here and stopped after), the same containerd
 * (KUBELET_IT_CRI, e.g. from .ci/containerd/up.sh), cluster mode, each kubelet joining with a node
 * kubeconfig under a node name of its own, in alternating turns (sidebyside-turn.ts says what a turn
 * measures). Prints each figure's median per kubelet and the ratio kubelet-ts / Go (below 1: kubelet-ts
 * is faster or cheaper), then a row per scheduled-workload check with each turn's ✓ or ✗ and time per
 * kubelet (✗ with its reason); each turn's figures go to stderr as they come.
 * KUBELET_BENCH_SIDEBYSIDE_REPS=N: N turns of each (2); KUBELET_BENCH_SIDEBYSIDE_IDLE_SECONDS=S: idle
 * windows of S s (60); KUBELET_BENCH_SIDEBYSIDE_PODS=N: bursts of N pods (30; 110 is the density case, Go's
 * maxPods). Skipped, with the reason, without the Go kubelet, the lab's scripts or a containerd.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneMissing, kubeLabScripts, purgeKubeLab } from '../test/support/kube-lab-scripts.js';
import { absentLabBinaries, notBuilt, requireLabBinary } from '../test/support/lab-bin.js';
import { upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { KUBELET_BIN } from './kubelet-bin.js';
import { prepareNode, startGoKubelet, startKubeletTs, type KubeletKind } from './sidebyside-kubelets.js';
import { BURST, oneTurn, type TurnResult } from './sidebyside-turn.js';
import { WORKLOAD_CHECKS, type WorkloadCheck, type WorkloadResults } from './sidebyside-workloads.js';
import { median, round } from './stats.js';

const REPS = Number(process.env.KUBELET_BENCH_SIDEBYSIDE_REPS ?? 2);
const IDLE_MS = Number(process.env.KUBELET_BENCH_SIDEBYSIDE_IDLE_SECONDS ?? 60) * 1000;
const PODS = Number(process.env.KUBELET_BENCH_SIDEBYSIDE_PODS ?? BURST);

/** Why a side-by-side bench cannot run here, or '' when it can: the Go kubelet and the control plane are KUBE_LAB_BIN's. */
export function missing(scripts: string): string {
  const goKubelet = absentLabBinaries(['kubelet']);
  return [
    controlPlaneMissing(scripts),
    goKubelet.length ? notBuilt(goKubelet) : '',
    process.env.KUBELET_IT_CRI ? '' : 'no containerd: KUBELET_IT_CRI is unset (eval "$(bash .ci/containerd/up.sh)" first, with a LAB, BRIDGE and POD_SUBNET of its own when another is running)',
    existsSync(KUBELET_BIN) ? '' : `no kubelet-ts bundle at ${KUBELET_BIN} (npm run build)`,
  ].filter(Boolean).join('; ');
}

export async function benchSideBySide(): Promise<Record<string, number | string>> {
  const scripts = kubeLabScripts();
  const skip = missing(scripts);
  if (skip) return { skipped: skip };
  if (!(REPS >= 1) || !(IDLE_MS > 0) || !(PODS >= 1 && PODS <= 110)) {
    throw new Error('KUBELET_BENCH_SIDEBYSIDE_REPS must be ≥ 1, KUBELET_BENCH_SIDEBYSIDE_IDLE_SECONDS > 0 and KUBELET_BENCH_SIDEBYSIDE_PODS 1 to 110 (maxPods)');
  }
  const work = mkdtempSync(join(tmpdir(), 'kts-sidebyside-'));
  const labDir = join(work, 'lab');
  mkdirSync(labDir);
  const samples: Record<KubeletKind, Map<string, number[]>> = { go: new Map(), ts: new Map() };
  const workloads: Record<KubeletKind, WorkloadResults[]> = { go: [], ts: [] };
  const failedTurns: string[] = [];
  try {
    const lab = await upOnce(labDir, scripts);
    for (let rep = 1; rep <= REPS; rep++) {
      // Alternating which goes first, so neither always runs on the machine the other just left.
      const order: KubeletKind[] = rep % 2 === 1 ? ['go', 'ts'] : ['ts', 'go'];
      for (const kind of order) {
        // A failed turn is reported and its figures left out; the others still run and are summed up.
        const result = await turn(lab, work, kind, rep).catch((err: unknown) => {
          failedTurns.push(`${kind} rep ${rep}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
          process.stderr.write(`sidebyside: ${kind} rep ${rep} failed: ${err instanceof Error ? err.message : String(err)}\n`);
          return undefined;
        });
        if (!result) continue;
        const { figures, workloads: checks } = result;
        // The machine is shared: its load beside each turn's figures says how far to trust them.
        const load = loadavg().map((l) => l.toFixed(2)).join(' ');
        process.stderr.write(`sidebyside: ${kind} rep ${rep} (load average after it ${load}): ${JSON.stringify(figures)} ${JSON.stringify(checks)}\n`);
        for (const [k, v] of Object.entries(figures)) samples[kind].set(k, [...(samples[kind].get(k) ?? []), v]);
        workloads[kind].push(checks);
      }
    }
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`sidebyside: stopping the control plane: ${String(err)}\n`));
    rmSync(work, { recursive: true, force: true });
  }
  const out: Record<string, number | string> = { reps: REPS, idleSeconds: IDLE_MS / 1000, pods: PODS };
  if (failedTurns.length > 0) out.failedTurns = failedTurns.join('; ');
  for (const [key, goValues] of samples.go) {
    const go = round(median(goValues), 2);
    const ts = round(median(samples.ts.get(key) ?? []), 2);
    Object.assign(out, { [`${key}.go`]: go, [`${key}.kubelet-ts`]: ts, [`${key}.kubelet-ts/go`]: round(ts / go, 2) });
  }
  out['scheduled workloads'] = 'go | kubelet-ts, a turn each: ✓ or ✗, s from the objects\' creation (deleted →: from the DELETE)';
  for (const check of WORKLOAD_CHECKS) {
    const cells = (kind: KubeletKind) => workloads[kind].map((turnChecks) => cell(turnChecks[check])).join(', ');
    out[check] = `${cells('go')} | ${cells('ts')}`;
  }
  return out;
}

/** One turn's outcome of a check: ✓ or ✗ and the seconds to it, ✗ with why. */
function cell(c: WorkloadCheck | undefined): string {
  if (!c) return '✗ (not run)';
  const time = `${(c.ms / 1000).toFixed(1)} s`;
  return c.ok ? `✓ ${time}` : `✗ ${time} (${c.reason ?? ''})`;
}

async function turn(lab: KubeLab, work: string, kind: KubeletKind, rep: number): Promise<TurnResult> {
  const node = `sbs-${kind}-${rep}`;
  const setup = await prepareNode(lab, work, node);
  return oneTurn({
    lab, setup, namespace: node, image: process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0', idleMs: IDLE_MS, pods: PODS,
    start: () => (kind === 'go' ? startGoKubelet(requireLabBinary('kubelet'), setup) : startKubeletTs(setup)),
  });
}
