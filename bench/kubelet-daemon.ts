/**
 * The real kubelet-ts binary for the pod benchmarks, set up the way test/integration/pods.e2e.test.ts
 * does it: a config file with staticPodPath and podLogsDir, webhook auth off (anonymous requests,
 * AlwaysAllow), no healthz, the debug server on a loopback port (its /debug/pods shows the pods'
 * statuses), and the kubelet server only when asked for (on 127.0.0.1, its certificate generated
 * into `<dir>/pki`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_QOS_CGROUPS_ENV } from '../src/actors/phases/run-phases.js';
import { KUBELET_NODE_FLAGS } from '../src/bin/node-flags.js';
import { KUBELET_BIN as BIN } from './kubelet-bin.js';

export interface DaemonPaths {
  dir: string;
  manifests: string;
  logs: string;
  root: string;
}

export interface RunningDaemon {
  child: ChildProcess;
  pid: number;
  /** Epoch ms just before the spawn (t0 of the start-up figures, the Go kubelet's too). */
  spawnedAtMs: number;
  /** host:port of the debug server. */
  debugAddress: string;
  stderrTail(): string;
  /** SIGTERM, then wait for the exit (SIGKILL after 60 s). */
  stop(): Promise<void>;
}

export interface PodView {
  name: string;
  lifecycle: string;
  status: { phase?: string; containerStatuses?: { state?: { running?: object } }[] } | null;
}

export interface DaemonOptions {
  /** More options for node itself, e.g. `--cpu-prof` to see what the kubelet spends its CPU on. */
  nodeArgs?: string[];
  /** V8's own defaults instead of the executable's options (src/bin/node-flags.ts), to show what they do. */
  v8Defaults?: boolean;
  /** Serve the kubelet server on 127.0.0.1:serverPort (off when absent). */
  serverPort?: number;
  /**
   * QoS and pod cgroups on (cgroupsPerQOS, Go's default) under this --cgroup-root, which must exist;
   * absent: none, as every bench kubelet (kubelet-bin.ts).
   */
  cgroupRoot?: string;
  /** Added to the kubelet's environment. */
  env?: Record<string, string>;
}

export async function startDaemon(paths: DaemonPaths, runtimeEndpoint: string, nodeName: string, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const cfg = join(paths.dir, 'kubelet.yaml');
  const server = options.serverPort === undefined ? ['enableServer: false'] : ['address: 127.0.0.1', `port: ${options.serverPort}`];
  writeFileSync(cfg, [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `staticPodPath: ${paths.manifests}`, `podLogsDir: ${paths.logs}`, `containerRuntimeEndpoint: ${runtimeEndpoint}`,
    'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
    ...server, 'healthzPort: 0', ...(options.cgroupRoot ? [`cgroupRoot: ${options.cgroupRoot}`] : []), '',
  ].join('\n'));
  const spawnedAtMs = Date.now();
  const args = [BIN, `--config=${cfg}`, `--root-dir=${paths.root}`, `--device-plugins-dir=${join(paths.root, 'device-plugins')}`, `--cert-dir=${join(paths.dir, 'pki')}`, '--debug-address=127.0.0.1:0', `--hostname-override=${nodeName}`];
  const v8 = options.v8Defaults ? [] : KUBELET_NODE_FLAGS;
  const child = spawn(process.execPath, [...v8, ...(options.nodeArgs ?? []), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(options.cgroupRoot || options.env ? { env: { ...process.env, ...(options.cgroupRoot ? { [NO_QOS_CGROUPS_ENV]: '' } : {}), ...options.env } } : {}),
  });
  let stderr = '';
  let debugAddress = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-200_000);
    const m = /"address":"(127\.0\.0\.1:\d+)","msg":"Debug server listening"/.exec(stderr);
    if (m && !debugAddress) debugAddress = m[1]!;
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 30_000;
  while (!debugAddress) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`kubelet-ts did not start its debug server:\n${stderr.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child, pid: child.pid!, spawnedAtMs, debugAddress,
    stderrTail: () => stderr.slice(-3000),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function debugPods(daemon: RunningDaemon): Promise<PodView[]> {
  const res = await fetch(`http://${daemon.debugAddress}/debug/pods`);
  return ((await res.json()) as { pods: PodView[] }).pods;
}

export const isRunning = (p: PodView): boolean =>
  p.lifecycle === 'active' && p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).length > 0 &&
  (p.status.containerStatuses ?? []).every((c) => c.state?.running !== undefined);
