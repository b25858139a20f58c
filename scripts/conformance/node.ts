/**
 * The one node of the run: a kubelet joined to the control plane with a node kubeconfig, its server on
 * 127.0.0.1 behind webhook authentication and authorization (the API server comes in with its
 * kubelet-client certificate, signed by the lab's CA), its pods under a cgroup root of the run's own,
 * and its name resolved to 127.0.0.1 by an /etc/hosts line the run adds and removes (the API server
 * dials a node by its Hostname address first). kubelet-ts is the bundle users run; the Go kubelet
 * v1.26 is given the equivalent configuration.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bench/free-port.js';
import { KUBELET_NODE_FLAGS } from '../../src/bin/node-flags.js';
import { labApi, type KubeLab } from '../../test/support/kube-lab-up.js';
import type { Runtime } from './results.js';

export const CLUSTER_DNS = '10.96.0.10';
/** The port the suite's failure dumps ask a node for; another one costs only those dumps. */
const USUAL_PORT = 10250;
const HOSTS = '/etc/hosts';

export interface NodeSpec {
  runtime: Runtime;
  name: string;
  /** The kubelet's own directory: config, root dir, certificates. */
  dir: string;
  kubeconfig: string;
  endpoint: string;
  cgroupRoot: string;
  pauseImage: string;
  logFile: string;
  /** The unpacked Go kubelet (runtime go). */
  goBinary?: string;
}

export interface NodeKubelet {
  pid: number;
  port: number;
  exitCode(): number | null;
  /** SIGTERM, SIGKILL after 30 s; resolves once it has exited. */
  stop(): Promise<void>;
}

function listenable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** The configuration both kubelets share, as the lab's README gives it. */
function sharedConfig(s: NodeSpec, ca: string, port: number, healthzPort: number): string[] {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    'address: 127.0.0.1', `port: ${port}`, 'readOnlyPort: 0', `healthzPort: ${healthzPort}`, 'healthzBindAddress: 127.0.0.1',
    `authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: ${ca}}}`,
    'authorization: {mode: Webhook}', `clusterDNS: [${CLUSTER_DNS}]`, 'cgroupDriver: cgroupfs', `cgroupRoot: ${s.cgroupRoot}`,
  ];
}

export async function startNodeKubelet(s: NodeSpec, lab: Pick<KubeLab, 'ca'>): Promise<NodeKubelet> {
  const port = (await listenable(USUAL_PORT)) ? USUAL_PORT : await freePort();
  const healthzPort = await freePort();
  const config = join(s.dir, 'kubelet.yaml');
  const common = [`--config=${config}`, `--kubeconfig=${s.kubeconfig}`, `--root-dir=${join(s.dir, 'root')}`, `--cert-dir=${join(s.dir, 'pki')}`, `--hostname-override=${s.name}`];
  let file: string;
  let args: string[];
  if (s.runtime === 'go') {
    // No iptables chains on the host: kubelet-ts makes none either. v1.35 refuses cgroup v1 unless
    // told otherwise (these machines are v1), and takes its sandbox image from containerd's config.
    writeFileSync(config, [...sharedConfig(s, lab.ca, port, healthzPort), 'failSwapOn: false', 'makeIPTablesUtilChains: false', 'failCgroupV1: false', ''].join('\n'));
    file = s.goBinary!;
    args = [...common, `--container-runtime-endpoint=${s.endpoint}`];
  } else {
    writeFileSync(config, [...sharedConfig(s, lab.ca, port, healthzPort), `containerRuntimeEndpoint: ${s.endpoint}`, `podLogsDir: ${join(s.dir, 'logs')}`, ''].join('\n'));
    file = process.execPath;
    args = [...KUBELET_NODE_FLAGS, resolve('dist/bundle/kubelet.js'), ...common, '--debug-address='];
  }
  const log = openSync(s.logFile, 'a');
  // A process group of its own: a Ctrl-C reaches the runner only, which stops the kubelet after the suite has cleaned up.
  const { KUBELET_TS_NO_QOS_CGROUPS: _off, ...env } = process.env;
  const child = spawn(file, args, { stdio: ['ignore', log, log], detached: true, env });
  closeSync(log);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    pid: child.pid!, port, exitCode: () => child.exitCode ?? (child.signalCode ? -1 : null),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until the Node is Ready; fails early when the kubelet exits. */
export async function untilNodeReady(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, name: string, kubelet: NodeKubelet, logFile: string, ms = 180_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const node = await labApi<{ status?: { conditions?: { type: string; status: string }[] } }>(lab, 'GET', `/api/v1/nodes/${name}`);
    if (node.status === 200 && (node.body.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')) return;
    const tail = () => readFileSync(logFile, 'utf8').slice(-3000);
    if (kubelet.exitCode() !== null) throw new Error(`the kubelet exited (${kubelet.exitCode()}) before its Node was Ready:\n${tail()}`);
    if (Date.now() > deadline) throw new Error(`Node ${name} not Ready within ${ms / 1000} s:\n${tail()}`);
    await sleep(500);
  }
}

/** Adds `127.0.0.1 <name>` to /etc/hosts, tagged with this process; returns how to remove exactly that line. */
export function addHostsLine(name: string): () => void {
  const line = `127.0.0.1 ${name} # kubelet-ts conformance ${process.pid}`;
  appendFileSync(HOSTS, `${line}\n`);
  // Written in place: /etc/hosts may be a bind mount, which a rename would not replace.
  return () => writeFileSync(HOSTS, readFileSync(HOSTS, 'utf8').split('\n').filter((l) => l !== line).join('\n'));
}

/** Unmounts what the kubelet left mounted under `dir` (volumes on tmpfs), deepest first. */
export function unmountUnder(dir: string): void {
  const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(`${dir}/`)).sort().reverse();
  for (const m of mounts) execFileSync('umount', ['-l', m]);
}

export function nodeDir(work: string, name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
