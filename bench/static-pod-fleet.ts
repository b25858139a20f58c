/**
 * N static pods run by the real binary, for the benchmarks that need a full node (`pods`, `http`):
 * a manifest directory of the test pod of docs/BENCHMARKS.md, the daemon started on it, every pod waited for
 * until its containers run; afterwards the daemon stopped and every pod removed through the runtime
 * (the containers outlive the kubelet, as in Go) and the directory deleted.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../src/adapters/embedded-runtime/index.js';
import type { CriClient } from '../src/ports/cri.js';
import { tearDownSandbox } from './cri-fixtures.js';
import { debugPods, isRunning, startDaemon, type DaemonOptions, type DaemonPaths, type RunningDaemon } from './kubelet-daemon.js';

export interface PodRun {
  label: string;
  pods: number;
  /** `embedded`, or a containerd socket. */
  endpoint: string;
  /** Run the daemon under V8's defaults (DaemonOptions.v8Defaults). */
  v8Defaults?: boolean;
  /** Run it with QoS and pod cgroups under this cgroup root (DaemonOptions.cgroupRoot). */
  cgroupRoot?: string;
}

export interface Fleet {
  run: PodRun;
  paths: DaemonPaths;
  nodeName: string;
  daemon: RunningDaemon;
}

export interface FleetOptions {
  /** Give up when the pods are not all running by then. */
  startTimeoutSeconds: number;
  daemon?: DaemonOptions;
  /** Called while waiting for the pods (e.g. to sample the daemon's RSS). */
  onTick?: (daemon: RunningDaemon) => void;
  /** TCP ports the pods' container declares (the embedded runtime forwards only declared ports). */
  containerPorts?: readonly number[];
}

/** The runs of a benchmark: its pod counts on the embedded runtime, and on containerd when KUBELET_IT_CRI names one. */
export function podRuns(mode: string, embeddedPods: readonly number[], containerdPods: readonly number[]): PodRun[] {
  const runs = embeddedPods.map((pods) => ({ label: `embedded${pods}`, pods, endpoint: 'embedded' }));
  const containerd = process.env.KUBELET_IT_CRI;
  if (containerd) runs.push(...containerdPods.map((pods) => ({ label: `containerd${pods}`, pods, endpoint: containerd })));
  else process.stdout.write(`${mode}: KUBELET_IT_CRI is unset: embedded runtime only\n`);
  return runs;
}

/** The test pod of docs/BENCHMARKS.md: one busybox container that sleeps until SIGTERM, image never pulled. */
export function sleeperPodManifest(name: string, containerPorts: readonly number[] = []): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 3,
      containers: [{
        name: 'main', image: 'kubelet-ts.local/busybox:1.0', imagePullPolicy: 'Never',
        command: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'],
        ...(containerPorts.length > 0 ? { ports: containerPorts.map((containerPort) => ({ containerPort, protocol: 'TCP' })) } : {}),
      }],
    },
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
async function connectRuntime(run: Pick<PodRun, 'endpoint'>, paths: Pick<DaemonPaths, 'dir' | 'root'>): Promise<{ cri: CriClient; close: () => Promise<void> }> {
  if (run.endpoint !== 'embedded') {
    const cri = createCriClient({ endpoint: run.endpoint });
    return { cri, close: async () => cri.close() };
  }
  const runtime = await startEmbeddedRuntime({ socketPath: join(paths.dir, 'cleanup.sock'), stateDir: join(paths.root, 'embedded-runtime') });
  const cri = createCriClient({ endpoint: runtime.endpoint });
  return { cri, close: async () => { cri.close(); await runtime.close(); } };
}

/**
 * Removes the sandboxes `select` picks (by name and namespace) from the runtime a stopped daemon
 * used; answers how many. On a shared containerd, select by namespace too: other tests' pods are there.
 */
export async function removePods(run: Pick<PodRun, 'endpoint'>, paths: Pick<DaemonPaths, 'dir' | 'root'>, select: (sandboxName: string, namespace: string) => boolean): Promise<number> {
  const { cri, close } = await connectRuntime(run, paths);
  try {
    const ours = (await cri.runtime.listPodSandbox()).filter((s) => select(s.metadata.name, s.metadata.namespace));
    for (let i = 0; i < ours.length; i += 8) await Promise.all(ours.slice(i, i + 8).map((s) => tearDownSandbox(cri, s.id)));
    return ours.length;
  } finally {
    await close();
  }
}

/**
 * Runs `body` on a node with `run.pods` pods running; then stops the daemon (if `body` has not),
 * removes the pods and the directory. Answers body's result and how many pods were removed.
 */
export async function withStaticPods<T>(run: PodRun, o: FleetOptions, body: (fleet: Fleet) => Promise<T>): Promise<{ result: T; podsRemoved: number }> {
  const dir = mkdtempSync(join(tmpdir(), `kts-bench-${run.label}-`));
  const paths: DaemonPaths = { dir, manifests: join(dir, 'manifests'), logs: join(dir, 'logs'), root: join(dir, 'root') };
  mkdirSync(paths.manifests);
  const nodeName = `bench-${randomUUID().slice(0, 8)}`;
  for (let i = 0; i < run.pods; i++) {
    const name = `bench-${String(i).padStart(3, '0')}`;
    writeFileSync(join(paths.manifests, `${name}.json`), sleeperPodManifest(name, o.containerPorts));
  }
  let daemon: RunningDaemon | undefined;
  let result: T;
  let podsRemoved = 0;
  try {
    daemon = await startDaemon(paths, run.endpoint, nodeName, {
      ...o.daemon, ...(run.v8Defaults ? { v8Defaults: true } : {}), ...(run.cgroupRoot ? { cgroupRoot: run.cgroupRoot } : {}),
    });
    const started = daemon;
    await waitAllRunning(started, run.pods, o.startTimeoutSeconds * 1000, () => o.onTick?.(started));
    result = await body({ run, paths, nodeName, daemon });
  } finally {
    await daemon?.stop();
    podsRemoved = await removePods(run, paths, (name) => name.endsWith(`-${nodeName}`));
    rmSync(dir, { recursive: true, force: true });
  }
  return { result, podsRemoved };
}
