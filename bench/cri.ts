/**
 * CRI benchmarks: what kubelet-ts's CRI client adds over bare grpc-js, and how the embedded runtime
 * compares with containerd.
 *
 * 1. Client overhead: kubelet-ts's CRI client (`createCriClient`) against a bare grpc-js client on
 *    the same proto (raw-cri.ts), alternating call by call in one run, on each runtime available:
 *    RunPodSandbox, CreateContainer+StartContainer, ListContainers with 1 and with 100 containers.
 *    Per-op medians and the ratio kubelet-ts/raw (target ≤ 1.10).
 * 2. Pod start, embedded runtime against containerd, alternating: RunPodSandbox + CreateContainer +
 *    StartContainer until ContainerStatus says RUNNING, through kubelet-ts's client on both.
 *
 * containerd is used when KUBELET_IT_CRI names its socket (`eval "$(bash .ci/containerd/up.sh)"`);
 * otherwise only the embedded runtime runs, and the output says so. The embedded runtime runs as its
 * own process (`kubelet-ts runtime serve`). Every pod made here is removed before returning.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import type { CriClient } from '../src/ports/cri.js';
import { sandboxConfig, sleeperConfig, tearDownContainer, tearDownRun, tearDownSandbox, type PodPlace } from './cri-fixtures.js';
import { startEmbeddedRuntimeProcess } from './embedded-runtime-process.js';
import { createRawRuntimeClient, type RawRuntimeClient } from './raw-cri.js';
import { median, round } from './stats.js';

export interface CriBenchOptions {
  /** Samples per mutating op and client (RunPodSandbox, Create+Start, pod start). */
  samples?: number;
  /** Samples per ListContainers size and client. */
  listSamples?: number;
  /** Containers present for the large ListContainers. */
  manyContainers?: number;
  /** Untimed iterations first (connections, JIT). */
  warmup?: number;
}

interface Target {
  name: 'embedded' | 'containerd';
  endpoint: string;
  image: string;
  place: PodPlace;
}

interface Clients {
  target: Target;
  cri: CriClient;
  raw: RawRuntimeClient;
}

type Op = () => Promise<void>;

/**
 * Runs the kubelet-ts op and the raw op in turns (which goes first alternates) and times each;
 * `after` (untimed) cleans up after each pair.
 */
async function alternate(
  samples: number, warmup: number, ts: (i: number) => Op, raw: (i: number) => Op, after: () => Promise<void> = async () => {},
): Promise<{ ts: number[]; raw: number[] }> {
  const out = { ts: [] as number[], raw: [] as number[] };
  for (let i = 0; i < warmup + samples; i++) {
    const pair: [keyof typeof out, Op][] = [['ts', ts(i)], ['raw', raw(i)]];
    if (i % 2 === 1) pair.reverse();
    for (const [who, op] of pair) {
      const t0 = performance.now();
      await op();
      if (i >= warmup) out[who].push(performance.now() - t0);
    }
    await after();
  }
  return out;
}

function figures(prefix: string, r: { ts: number[]; raw: number[] }): Record<string, number> {
  return {
    [`${prefix}.kubeletTs.p50Ms`]: round(median(r.ts), 3),
    [`${prefix}.raw.p50Ms`]: round(median(r.raw), 3),
    [`${prefix}.ratio`]: round(median(r.ts) / median(r.raw), 3),
  };
}

async function clientOverhead(c: Clients, o: Required<CriBenchOptions>): Promise<Record<string, number>> {
  const { cri, raw, target } = c;
  const out: Record<string, number> = {};
  const name = target.name;

  // RunPodSandbox: each pair of sandboxes is removed before the next pair (untimed).
  const made: string[] = [];
  const sandboxes = await alternate(o.samples, o.warmup,
    (i) => {
      const config = sandboxConfig(target.place, `rps-ts-${i}`); // made (and its log dir) before the clock starts
      return async () => { made.push(await cri.runtime.runPodSandbox(config)); };
    },
    (i) => {
      const config = sandboxConfig(target.place, `rps-raw-${i}`);
      return async () => {
        made.push((await raw.call<{ pod_sandbox_id: string }>('RunPodSandbox', { config, runtime_handler: '' })).pod_sandbox_id);
      };
    },
    async () => { await Promise.all(made.splice(0).map((id) => tearDownSandbox(cri, id))); });
  Object.assign(out, figures(`${name}.runPodSandbox`, sandboxes));

  // CreateContainer + StartContainer, in one sandbox; each container is removed after its pair.
  const podConfig = sandboxConfig(target.place, 'create-start');
  const pod = await cri.runtime.runPodSandbox(podConfig);
  const started: string[] = [];
  const createStart = await alternate(o.samples, o.warmup,
    (i) => async () => {
      const id = await cri.runtime.createContainer(pod, sleeperConfig(target.image, `ts-${i}`), podConfig);
      await cri.runtime.startContainer(id);
      started.push(id);
    },
    (i) => async () => {
      const { container_id: id } = await raw.call<{ container_id: string }>('CreateContainer', {
        pod_sandbox_id: pod, config: sleeperConfig(target.image, `raw-${i}`), sandbox_config: podConfig,
      });
      await raw.call('StartContainer', { container_id: id });
      started.push(id);
    },
    async () => { await Promise.all(started.splice(0).map((cid) => tearDownContainer(cri, cid))); });
  Object.assign(out, figures(`${name}.createStartContainer`, createStart));

  // ListContainers (no filter, as the PLEG's relist) with 1, then with manyContainers containers.
  const listBoth = async (expected: number) => {
    const check = (n: number) => {
      if (n !== expected) throw new Error(`${name}: ListContainers returned ${n} containers, expected ${expected}`);
    };
    return alternate(o.listSamples, o.warmup,
      () => async () => check((await cri.runtime.listContainers()).length),
      () => async () => check((await raw.call<{ containers: unknown[] }>('ListContainers', {})).containers.length));
  };
  const first = await cri.runtime.createContainer(pod, sleeperConfig(target.image, 'list-0'), podConfig);
  await cri.runtime.startContainer(first);
  Object.assign(out, figures(`${name}.listContainers1`, await listBoth(1)));
  for (let i = 1; i < o.manyContainers; i += 4) {
    await Promise.all([0, 1, 2, 3].filter((k) => i + k < o.manyContainers).map(async (k) => {
      const id = await cri.runtime.createContainer(pod, sleeperConfig(target.image, `list-${i + k}`), podConfig);
      await cri.runtime.startContainer(id);
    }));
  }
  Object.assign(out, figures(`${name}.listContainers${o.manyContainers}`, await listBoth(o.manyContainers)));
  await tearDownSandbox(cri, pod);
  return out;
}

/** RunPodSandbox → CreateContainer → StartContainer → ContainerStatus RUNNING; the pod is removed after (untimed). */
async function podStart(c: Clients, i: number): Promise<number> {
  const { cri, target } = c;
  const t0 = performance.now();
  const config = sandboxConfig(target.place, `start-${i}`);
  const sandbox = await cri.runtime.runPodSandbox(config);
  const id = await cri.runtime.createContainer(sandbox, sleeperConfig(target.image, 'main'), config);
  await cri.runtime.startContainer(id);
  while ((await cri.runtime.containerStatus(id)).status?.state !== 'CONTAINER_RUNNING') {
    if (performance.now() - t0 > 30_000) throw new Error(`${target.name}: container ${id} not running after 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const elapsed = performance.now() - t0;
  await tearDownSandbox(cri, sandbox);
  return elapsed;
}

async function podStartSideBySide(all: Clients[], o: Required<CriBenchOptions>): Promise<Record<string, number>> {
  const times = new Map<string, number[]>(all.map((c) => [c.target.name, []]));
  for (let i = 0; i < o.warmup + o.samples; i++) {
    const order = i % 2 === 0 ? all : [...all].reverse();
    for (const c of order) {
      const ms = await podStart(c, i);
      if (i >= o.warmup) times.get(c.target.name)!.push(ms);
    }
  }
  const out: Record<string, number> = {};
  for (const [name, ms] of times) out[`podStart.${name}.p50Ms`] = round(median(ms), 1);
  const embedded = times.get('embedded');
  const containerd = times.get('containerd');
  if (embedded && containerd) out['podStart.ratioEmbeddedToContainerd'] = round(median(embedded) / median(containerd), 3);
  return out;
}

export async function benchCri(options: CriBenchOptions = {}): Promise<Record<string, number>> {
  const o: Required<CriBenchOptions> = { samples: 30, listSamples: 100, manyContainers: 100, warmup: 3, ...options };
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-cri-'));
  const runId = randomUUID();
  const embeddedProcess = await startEmbeddedRuntimeProcess(join(dir, 'cri.sock'), join(dir, 'state'));
  const targets: Target[] = [{
    name: 'embedded', endpoint: embeddedProcess.endpoint, image: 'kubelet-ts.local/busybox:1.0',
    place: { runId, logRoot: join(dir, 'logs'), cgroupParent: undefined },
  }];
  const containerdEndpoint = process.env.KUBELET_IT_CRI;
  if (containerdEndpoint) {
    targets.push({
      name: 'containerd', endpoint: containerdEndpoint, image: process.env.KUBELET_IT_CRI_IMAGE || 'kubelet-ts.local/busybox:1.0',
      place: {
        runId, cgroupParent: process.env.KUBELET_IT_CRI_CGROUP_PARENT || undefined,
        logRoot: join(process.env.KUBELET_IT_CRI_LAB || dir, 'bench-logs', runId),
      },
    });
  } else {
    process.stdout.write('cri: KUBELET_IT_CRI is unset: embedded runtime only (no containerd figures, no pod-start ratio)\n');
  }
  const clients: Clients[] = targets.map((target) => ({
    target, cri: createCriClient({ endpoint: target.endpoint }), raw: createRawRuntimeClient(target.endpoint),
  }));
  const out: Record<string, number> = { samples: o.samples, listSamples: o.listSamples };
  try {
    for (const c of clients) Object.assign(out, await clientOverhead(c, o));
    Object.assign(out, await podStartSideBySide(clients, o));
  } finally {
    let leftovers = 0;
    for (const c of clients) {
      leftovers += await tearDownRun(c.cri, runId).catch(() => 0);
      c.cri.close();
      c.raw.close();
    }
    out.leftoverPodsRemoved = leftovers;
    await embeddedProcess.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
