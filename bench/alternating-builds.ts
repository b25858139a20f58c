/**
 * Two builds of kubelet-ts (this one and a baseline copy of an earlier bundle) measured in turns on
 * one real control plane and containerd, which goes first alternating rep by rep, so that the
 * machine's drift falls on both alike: the harness of burstcpu.ts and idlealloc.ts. Each turn's
 * figures and the load average go to stderr; the answer is every figure's samples by build.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneMissing, kubeLabScripts, purgeKubeLab } from '../test/support/kube-lab-scripts.js';
import { upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { median, round } from './stats.js';

export interface NamedBuild { name: string }

/** Why the bench cannot run here (no control plane's scripts, no containerd), or undefined. */
export function realLabMissing(): string | undefined {
  const scripts = kubeLabScripts();
  const unavailable = controlPlaneMissing(scripts);
  if (unavailable) return unavailable;
  if (!process.env.KUBELET_IT_CRI) return 'no containerd: KUBELET_IT_CRI is unset (.ci/containerd/up.sh)';
  return undefined;
}

export async function alternateBuilds<B extends NamedBuild>(
  bench: string,
  builds: readonly B[],
  reps: number,
  turn: (lab: KubeLab, work: string, build: B, rep: number) => Promise<Record<string, number>>,
): Promise<Map<string, number[]>> {
  const scripts = kubeLabScripts();
  const work = mkdtempSync(join(tmpdir(), `kts-${bench}-`));
  const labDir = join(work, 'lab');
  mkdirSync(labDir);
  const samples = new Map<string, number[]>();
  try {
    const lab = await upOnce(labDir, scripts);
    for (let rep = 1; rep <= reps; rep++) {
      for (const build of rep % 2 === 1 ? builds : [...builds].reverse()) {
        const figures = await turn(lab, work, build, rep);
        process.stderr.write(`${bench}: ${build.name} rep ${rep} (load average after it ${loadavg().map((l) => l.toFixed(2)).join(' ')}): ${JSON.stringify(figures)}\n`);
        for (const [k, v] of Object.entries(figures)) samples.set(`${build.name}.${k}`, [...(samples.get(`${build.name}.${k}`) ?? []), v]);
      }
    }
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`${bench}: stopping the control plane: ${String(err)}\n`));
    rmSync(work, { recursive: true, force: true });
  }
  return samples;
}

/** Each figure's median, rounded to `digits`. */
export function medians(samples: Map<string, number[]>, digits: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, values] of samples) out[key] = round(median(values), digits);
  return out;
}
