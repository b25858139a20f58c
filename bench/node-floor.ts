/**
 * How much of an idle kubelet-ts's RSS any Node kubelet pays (`npm run bench -- nodefloor`): on the
 * real control plane and containerd of `sidebyside`, in turns, each process alone on the machine:
 * the Go kubelet and kubelet-ts at 0 pods as `sidebyside` starts them; node-floor-process.ts, which
 * holds a kubelet's connections and servers and does nothing else; a bare `node` idling. All the Node
 * processes run with the executable's V8 flags. RSS (anonymous and file pages) and CPU a minute over
 * the window, `_SECONDS` (60) from 5 s after each is up, as sidebyside's first idle window.
 * KUBELET_BENCH_NODEFLOOR_REPS=N (3): turns of each, the order rotating rep by rep;
 * KUBELET_BENCH_NODEFLOOR_VARIANT='--flag …': one more kind, `tsVariant`, kubelet-ts with those node options.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KUBELET_NODE_FLAGS } from '../src/bin/node-flags.js';
import { kubeLabScripts, purgeKubeLab } from '../test/support/kube-lab-scripts.js';
import { requireLabBinary } from '../test/support/lab-bin.js';
import { upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { freePort } from './free-port.js';
import { cpuSeconds, rssMiB, rssPartsMiB } from './proc-usage.js';
import { missing } from './sidebyside.js';
import { prepareNode, spawnKubelet, startGoKubelet, startKubeletTs, type NodeSetup, type StartedKubelet } from './sidebyside-kubelets.js';
import { cleanUp, startUp } from './sidebyside-turn.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';

const REPS = Number(process.env.KUBELET_BENCH_NODEFLOOR_REPS ?? 3);
const WINDOW_MS = Number(process.env.KUBELET_BENCH_NODEFLOOR_SECONDS ?? 60) * 1000;
const VARIANT = (process.env.KUBELET_BENCH_NODEFLOOR_VARIANT ?? '').split(' ').filter(Boolean);
type Kind = 'go' | 'ts' | 'tsVariant' | 'floor' | 'bare';
const KINDS: readonly Kind[] = ['go', 'ts', ...(VARIANT.length > 0 ? ['tsVariant' as const] : []), 'floor', 'bare'];
const FLOOR_PROCESS = resolve('dist/bench/node-floor-process.js');

export async function benchNodeFloor(): Promise<Record<string, number | string>> {
  const scripts = kubeLabScripts();
  const skip = missing(scripts);
  if (skip) return { skipped: skip };
  const work = mkdtempSync(join(tmpdir(), 'kts-nodefloor-'));
  const labDir = join(work, 'lab');
  const samples = new Map<string, number[]>();
  try {
    mkdirSync(labDir);
    const lab = await upOnce(labDir, scripts);
    for (let rep = 1; rep <= REPS; rep++) {
      // Rotating, so no kind always follows the same one onto the machine.
      const order = KINDS.map((_, i) => KINDS[(i + rep - 1) % KINDS.length]!);
      for (const kind of order) {
        const figures = await turn(lab, work, kind, rep);
        process.stderr.write(`nodefloor: ${kind} rep ${rep}: ${JSON.stringify(figures)}\n`);
        for (const [k, v] of Object.entries(figures)) samples.set(`${k}.${kind}`, [...(samples.get(`${k}.${kind}`) ?? []), v]);
      }
    }
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`nodefloor: stopping the control plane: ${String(err)}\n`));
    rmSync(work, { recursive: true, force: true });
  }
  const out: Record<string, number | string> = { reps: REPS, windowSeconds: WINDOW_MS / 1000, ...(VARIANT.length > 0 ? { variant: VARIANT.join(' ') } : {}) };
  for (const [key, values] of samples) out[key] = round(median(values), 2);
  // Each against the Go kubelet's RSS: what the 0.8× leaves kubelet-ts above the floor.
  for (const kind of KINDS.filter((k) => k !== 'go')) out[`rss.${kind}/go`] = round(Number(out[`rss.${kind}`]) / Number(out['rss.go']), 2);
  return out;
}

async function turn(lab: KubeLab, work: string, kind: Kind, rep: number): Promise<Record<string, number>> {
  const setup = await prepareNode(lab, work, `floor-${kind.toLowerCase()}-${rep}`);
  const started = await start(lab, setup, kind);
  try {
    await sleep(5000);
    const cpu0 = cpuSeconds(started.pid);
    await sleep(WINDOW_MS);
    const cpu = ((cpuSeconds(started.pid) - cpu0) * 60_000) / WINDOW_MS;
    const { anon, file } = rssPartsMiB(started.pid);
    return { rss: round(rssMiB(started.pid), 1), anon: round(anon, 1), file: round(file, 1), cpuPerMinute: round(cpu, 3) };
  } finally {
    await cleanUp({ lab, setup, namespace: setup.node, image: '', idleMs: 0, start: () => Promise.resolve(started) }, started);
  }
}

/** A kubelet up to Node Ready and its Lease, or a Node process up to its first line on stdout. */
async function start(lab: KubeLab, setup: NodeSetup, kind: Kind): Promise<StartedKubelet> {
  if (kind === 'go' || kind === 'ts' || kind === 'tsVariant') {
    const kubelet = kind === 'go'
      ? await startGoKubelet(requireLabBinary('kubelet'), setup)
      : await startKubeletTs(setup, { nodeFlags: kind === 'tsVariant' ? VARIANT : [] });
    // A kubelet that never got Ready is stopped here: the turn's clean-up only covers a started one.
    await startUp({ lab, setup, namespace: setup.node, image: '', idleMs: 0, start: () => Promise.resolve(kubelet) }, kubelet, {}).catch(async (err: unknown) => {
      await kubelet.stop();
      throw err;
    });
    return kubelet;
  }
  const [port, healthzPort] = [await freePort(), await freePort()];
  const pki = join(lab.dir, 'pki');
  const args = kind === 'floor'
    ? [FLOOR_PROCESS, lab.server, lab.ca, join(pki, `node-${setup.node}.crt`), join(pki, `node-${setup.node}.key`), setup.endpoint.replace(/^unix:\/\//, ''), setup.node, String(port), String(healthzPort)]
    : ['-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 1e6)"];
  return spawnNode([...KUBELET_NODE_FLAGS, ...args], { port, healthzPort });
}

/** node with `args`, once it printed `ready`. */
function spawnNode(args: string[], ports: { port: number; healthzPort: number }): Promise<StartedKubelet> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`not ready in 30 s: ${started.stderrTail()}`)), 30_000);
    const started = spawnKubelet(process.execPath, args, {
      ...ports, runsJavaScript: true,
      onStdout: (chunk) => {
        if (!chunk.toString().includes('ready')) return;
        clearTimeout(timer);
        done(started);
      },
    });
  });
}
