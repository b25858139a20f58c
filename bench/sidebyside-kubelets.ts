/**
 * The two kubelets the side-by-side bench compares, started the same way: cluster mode with a node
 * kubeconfig (a client certificate for system:node:<name>), the kubelet server on 127.0.0.1 with a
 * self-signed serving certificate generated at start (the Go kubelet's default), the API server let in
 * by its client certificate and a SubjectAccessReview, no read-only port, healthz on loopback, the
 * same client and event QPS and burst, no QoS cgroups, and the same containerd.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KUBELET_NODE_FLAGS } from '../src/bin/node-flags.js';
import { freePort } from './free-port.js';
import { KUBELET_BIN } from './kubelet-bin.js';
import { mkdirSync, writeFileSync as writeNodeFile } from 'node:fs';
import { join as joinPath } from 'node:path';
import { runScript, scriptEnv } from '../test/support/kube-lab-scripts.js';
import type { KubeLab } from '../test/support/kube-lab-up.js';

export type KubeletKind = 'go' | 'ts';

export interface NodeSetup {
  /** The kubelet's own directory: config, root dir, certificates, logs. */
  dir: string;
  node: string;
  kubeconfig: string;
  /** What signs the API server's client certificate (the lab's CA). */
  clientCa: string;
  /** unix:// socket of containerd. */
  endpoint: string;
  /** The sandbox image containerd has (the Go kubelet's --pod-infra-container-image). */
  pauseImage: string;
}

/** A node of its own for one turn: its directory under `work`, and a node kubeconfig from the lab's script. */
export async function prepareNode(lab: KubeLab, work: string, node: string): Promise<NodeSetup> {
  const dir = joinPath(work, node);
  mkdirSync(dir);
  const kubeconfig = joinPath(dir, 'node.kubeconfig');
  writeNodeFile(kubeconfig, await runScript('bash', [joinPath(lab.scripts, 'node-kubeconfig.sh'), node], scriptEnv(lab.dir), 60_000));
  return {
    dir, node, kubeconfig, clientCa: lab.ca, endpoint: process.env.KUBELET_IT_CRI!,
    pauseImage: process.env.KUBELET_IT_CRI_PAUSE_IMAGE ?? 'kubelet-ts.local/pause:1.0',
  };
}

export interface StartedKubelet {
  pid: number;
  /** performance.now() just before the spawn. */
  t0: number;
  healthzPort: number;
  /** The kubelet server's port (HTTPS on 127.0.0.1). */
  port: number;
  exitCode(): number | null;
  stderrTail(): string;
  /** SIGTERM, SIGKILL after 30 s; resolves on exit. */
  stop(): Promise<void>;
  /** kubelet-ts: its main thread is the event loop, so its CPU apart from the other threads' means something. */
  runsJavaScript: boolean;
}

/** The lines of configuration both kubelets are given. */
function sharedConfig(s: NodeSetup, port: number, healthzPort: number): string[] {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    'address: 127.0.0.1', `port: ${port}`, 'readOnlyPort: 0', `healthzPort: ${healthzPort}`, 'healthzBindAddress: 127.0.0.1',
    `authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: ${s.clientCa}}}`,
    'authorization: {mode: Webhook}', 'kubeAPIQPS: 50', 'kubeAPIBurst: 100',
    // Set for both: the Go kubelet's are 50 and 100 since v1.27, and kubelet-ts's too; older labs had 5 and 10,
    // and at 5 a second most of a burst's events would be written after the burst.
    'eventRecordQPS: 50', 'eventBurst: 100',
  ];
}

/**
 * The Go kubelet of KUBE_LAB_BIN (built on the machine). readOnlyPort stays 0; no QoS cgroups and no
 * iptables chains, as kubelet-ts here; cgroup v1 allowed (v1.35 refuses it by default, and these
 * machines are v1). Its sandbox image is containerd's `sandbox_image` (v1.35 has no flag for it).
 */
export async function startGoKubelet(bin: string, s: NodeSetup): Promise<StartedKubelet> {
  const [port, healthzPort] = [await freePort(), await freePort()];
  writeFileSync(join(s.dir, 'kubelet.yaml'), [
    ...sharedConfig(s, port, healthzPort),
    'cgroupDriver: cgroupfs', 'cgroupsPerQOS: false', 'enforceNodeAllocatable: []', 'failSwapOn: false', 'makeIPTablesUtilChains: false',
    'failCgroupV1: false', '',
  ].join('\n'));
  return spawnKubelet(bin, [
    `--config=${join(s.dir, 'kubelet.yaml')}`, `--kubeconfig=${s.kubeconfig}`, `--root-dir=${join(s.dir, 'root')}`, `--cert-dir=${join(s.dir, 'pki')}`,
    `--container-runtime-endpoint=${s.endpoint}`, `--hostname-override=${s.node}`,
  ], { port, healthzPort, runsJavaScript: false });
}

/** How a kubelet-ts build is started, beyond what every turn gives it. */
export interface KubeletTsStart {
  /** The bundle's entry (another build's, say); the bundle users run by default. */
  bin?: string;
  /** More kubelet flags. */
  args?: readonly string[];
  /** More of node's own options, after the #! line's (an --inspect port, say). */
  nodeFlags?: readonly string[];
  /** The node executable; this one's by default. */
  node?: string;
  /** More environment (the C library's allocator settings, say). */
  env?: Readonly<Record<string, string>>;
}

/**
 * kubelet-ts: the bundle users run (or another build's), with the V8 flags of its #! line;
 * KUBELET_BENCH_CPU_PROF=DIR adds a CPU profile of the daemon written there at its exit.
 */
export async function startKubeletTs(s: NodeSetup, { bin = KUBELET_BIN, args = [], nodeFlags = [], node = process.execPath, env = {} }: KubeletTsStart = {}): Promise<StartedKubelet> {
  const profile = process.env.KUBELET_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.KUBELET_BENCH_CPU_PROF}`] : [];
  const [port, healthzPort] = [await freePort(), await freePort()];
  writeFileSync(join(s.dir, 'kubelet.yaml'), [
    ...sharedConfig(s, port, healthzPort), `containerRuntimeEndpoint: ${s.endpoint}`, `podLogsDir: ${join(s.dir, 'logs')}`, '',
  ].join('\n'));
  return spawnKubelet(node, [
    ...KUBELET_NODE_FLAGS, ...nodeFlags, ...profile, bin, `--config=${join(s.dir, 'kubelet.yaml')}`, `--kubeconfig=${s.kubeconfig}`,
    `--root-dir=${join(s.dir, 'root')}`, `--device-plugins-dir=${join(s.dir, 'root', 'device-plugins')}`, `--cert-dir=${join(s.dir, 'pki')}`, `--hostname-override=${s.node}`, ...args,
  ], { port, healthzPort, runsJavaScript: true, env });
}

interface Spawned {
  port: number;
  healthzPort: number;
  runsJavaScript: boolean;
  env?: Readonly<Record<string, string>>;
  /** Given each chunk of the process's stdout (ignored without it). */
  onStdout?: (chunk: Buffer) => void;
}

/** A kubelet, or a process standing in for one, with its stderr's tail kept and a stop that waits for its exit. */
export function spawnKubelet(file: string, args: string[], { port, healthzPort, runsJavaScript, env = {}, onStdout }: Spawned): StartedKubelet {
  const t0 = performance.now();
  const child = spawn(file, args, { stdio: ['ignore', onStdout ? 'pipe' : 'ignore', 'pipe'], env: { ...process.env, ...env } });
  if (onStdout) child.stdout?.on('data', onStdout);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-100_000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    pid: child.pid!, t0, port, healthzPort, runsJavaScript, exitCode: () => child.exitCode ?? (child.signalCode ? -1 : null), stderrTail: () => stderr.slice(-3000),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
