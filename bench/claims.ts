/**
 * What a claim costs a pod's start, the Go kubelet v1.26 and kubelet-ts side by side
 * (`npm run bench -- claims`): the real control plane, the same containerd, cluster mode, turns
 * taking sides as in sidebyside.ts. Each turn, on a node of its own: 30 local PVs (a directory each,
 * node affinity to the node) bound in advance to 30 claims; the kubelet started; a warm-up burst of
 * 30 pods without volumes, not measured (a fresh process's first pods pay for loading code); then
 * (a) 30 pods without volumes and (b) 30 pods with a claim each, alternating their order from turn
 * to turn, each → every pod Running (p50, p99, all, the kubelet's CPU), then deleted and gone.
 * Prints per kubelet the medians and the ratio (b)/(a) of p99 and of CPU, and kubelet-ts's ratio
 * beside Go's. KUBELET_BENCH_CLAIMS_REPS=N: N turns of each (2).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { kubeLabScripts, purgeKubeLab } from '../test/support/kube-lab-scripts.js';
import { requireLabBinary } from '../test/support/lab-bin.js';
import { labApi, upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { missing } from './sidebyside.js';
import { api, type Lab } from './sidebyside-api.js';
import { prepareNode, startGoKubelet, startKubeletTs, type KubeletKind, type NodeSetup } from './sidebyside-kubelets.js';
import { BURST, burst, cleanUp, readyNamespace, startUp, teardown, type TurnOptions } from './sidebyside-turn.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';

const REPS = Number(process.env.KUBELET_BENCH_CLAIMS_REPS ?? 2);
const FIGURES = ['burst.p50Ms', 'burst.p99Ms', 'burst.allRunningMs', 'burst.cpuSeconds'] as const;

export async function benchClaims(): Promise<Record<string, number | string>> {
  const scripts = kubeLabScripts();
  const skip = missing(scripts);
  if (skip) return { skipped: skip };
  if (!(REPS >= 1)) throw new Error('KUBELET_BENCH_CLAIMS_REPS must be ≥ 1');
  const work = mkdtempSync(join(tmpdir(), 'kts-claims-'));
  const labDir = join(work, 'lab');
  mkdirSync(labDir);
  const samples: Record<KubeletKind, Map<string, number[]>> = { go: new Map(), ts: new Map() };
  try {
    const lab = await upOnce(labDir, scripts);
    for (let rep = 1; rep <= REPS; rep++) {
      const order: KubeletKind[] = rep % 2 === 1 ? ['go', 'ts'] : ['ts', 'go'];
      for (const kind of order) {
        const figures = await turn(lab, work, kind, rep);
        process.stderr.write(`claims: ${kind} rep ${rep} (load average after it ${loadavg().map((l) => l.toFixed(2)).join(' ')}): ${JSON.stringify(figures)}\n`);
        for (const [k, v] of Object.entries(figures)) samples[kind].set(k, [...(samples[kind].get(k) ?? []), v]);
      }
    }
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`claims: stopping the control plane: ${String(err)}\n`));
    rmSync(work, { recursive: true, force: true });
  }
  const out: Record<string, number | string> = { reps: REPS, pods: BURST };
  const med = (kind: KubeletKind, key: string) => round(median(samples[kind].get(key) ?? []), 2);
  for (const key of [...FIGURES.flatMap((f) => [`plain.${f}`, `claims.${f}`]), 'claims/plain.p99', 'claims/plain.cpu']) {
    const [go, ts] = [med('go', key), med('ts', key)];
    Object.assign(out, { [`${key}.go`]: go, [`${key}.kubelet-ts`]: ts, [`${key}.kubelet-ts/go`]: round(ts / go, 2) });
  }
  return out;
}

const claimOf = (podName: string) => `claim-${podName}`;

async function turn(lab: KubeLab, work: string, kind: KubeletKind, rep: number): Promise<Record<string, number>> {
  const node = `claims-${kind}-${rep}`;
  const setup = await prepareNode(lab, work, node);
  const ns = node;
  await readyNamespace(lab, ns);
  const pvs = await boundLocalVolumes(lab, setup, ns);
  const withClaims: TurnOptions['podVolumes'] = (podName) => ({
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claimOf(podName) } }],
    volumeMounts: [{ name: 'data', mountPath: '/data' }],
  });
  const base: TurnOptions = {
    lab, setup, namespace: ns, image: process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0', idleMs: 0,
    start: () => (kind === 'go' ? startGoKubelet(requireLabBinary('kubelet'), setup) : startKubeletTs(setup)),
  };
  const kubelet = await base.start();
  const figures: Record<string, number> = {};
  try {
    await startUp(base, kubelet, {});
    await burst(base, kubelet, {});
    await teardown(base, kubelet, {});
    const kinds = rep % 2 === 1 ? (['plain', 'claims'] as const) : (['claims', 'plain'] as const);
    for (const which of kinds) {
      const o = which === 'claims' ? { ...base, podVolumes: withClaims } : base;
      const out: Record<string, number> = {};
      await burst(o, kubelet, out);
      await teardown(o, kubelet, {});
      for (const f of FIGURES) figures[`${which}.${f}`] = out[f] ?? NaN;
    }
    figures['claims/plain.p99'] = round(figures['claims.burst.p99Ms']! / figures['plain.burst.p99Ms']!, 2);
    figures['claims/plain.cpu'] = round(figures['claims.burst.cpuSeconds']! / figures['plain.burst.cpuSeconds']!, 2);
    return figures;
  } finally {
    await cleanUp(base, kubelet).catch((err: unknown) => process.stderr.write(`claims: cleaning up ${node}: ${String(err)}\n`));
    for (const pv of pvs) await api(lab, 'DELETE', `/api/v1/persistentvolumes/${pv}`, undefined, [200, 404]).catch(() => undefined);
  }
}

/**
 * A local PV per burst pod, each bound in advance to its claim (the PV's claimRef and the claim's
 * volumeName name each other; the PV controller only confirms the binding), so the bursts measure
 * the kubelet, not the binder. Resolves once every claim is Bound.
 */
async function boundLocalVolumes(lab: Lab, setup: NodeSetup, ns: string): Promise<string[]> {
  const names = Array.from({ length: BURST }, (_, i) => `p${i}`);
  const pvs = names.map((pod) => `${ns}-${pod}`);
  await Promise.all(names.map(async (pod, i) => {
    const path = join(setup.dir, 'local-pvs', pod);
    mkdirSync(path, { recursive: true });
    await api(lab, 'POST', '/api/v1/persistentvolumes', {
      metadata: { name: pvs[i] },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '',
        claimRef: { namespace: ns, name: claimOf(pod) }, local: { path },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [setup.node] }] }] } },
      },
    });
    await api(lab, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      metadata: { name: claimOf(pod) },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: pvs[i], resources: { requests: { storage: '1Gi' } } },
    });
  }));
  const deadline = performance.now() + 120_000;
  for (;;) {
    const list = await labApi<{ items: { status?: { phase?: string } }[] }>(lab, 'GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims`);
    if (list.status === 200 && list.body.items.filter((c) => c.status?.phase === 'Bound').length === BURST) return pvs;
    if (performance.now() > deadline) throw new Error(`claims: the ${BURST} claims of ${ns} not all Bound after 120 s`);
    // A poll: the claims' phases are the binder's, read through the API.
    await sleep(250);
  }
}
