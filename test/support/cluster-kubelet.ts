/**
 * The real kubelet daemon in cluster mode, on the test API server or the real one (lab-node.ts), its
 * kubelet server on 127.0.0.1 letting the API server in as a cluster's does: the API server's client
 * certificate against authentication.x509.clientCAFile, then a SubjectAccessReview (authorization
 * mode Webhook).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApiServer } from '../apiserver/index.js';
import { KUBELET_BIN as BIN } from './kubelet-bin.js';

export interface ClusterKubelet { child: ChildProcess; stderr: () => string; exited: Promise<number | null> }

/** The top-level key a `key: value` line of YAML sets. */
const keyOf = (line: string) => line.split(':', 1)[0]!.trim();

/**
 * Starts it with its files under `dir`; `extraConfig` lines are added to its KubeletConfiguration,
 * a line whose key is one of the defaults below taking its place (`healthzPort: 10250`, say).
 */
export async function startClusterKubelet(
  dir: string, api: TestApiServer, endpoint: string, node: string, port: number, extraConfig: string[] = [],
): Promise<ClusterKubelet> {
  const clientCa = join(dir, 'apiserver-kubelet-client-ca.crt');
  writeFileSync(clientCa, await api.kubeletClientCaPem());
  return spawnClusterKubelet({ dir, endpoint, node, port, clientCa, extraConfig, kubeconfigArgs: [`--kubeconfig=${api.kubeconfigPath(dir)}`] });
}

/**
 * The daemon on any API server: `kubeconfigArgs` say how it reaches it (--kubeconfig, and
 * --bootstrap-kubeconfig for a TLS bootstrap), `clientCa` what signs the API server's client certificate.
 * A line of `extraConfig` replaces the default line of the same key.
 */
export function spawnClusterKubelet(opts: {
  dir: string; endpoint: string; node: string; port: number; clientCa: string; kubeconfigArgs: string[]; extraConfig?: string[];
  /** host:port of the debug server (/debug/actors, /debug/pods); none by default. */
  debugAddress?: string;
  /** Flags added to the command line (those with no KubeletConfiguration field). */
  extraArgs?: string[];
  /** Added to the test's environment. */
  env?: Record<string, string>;
  /** Runs the command line some other way (as a service of the systemd lab, say): the argv to spawn instead. */
  wrap?: (argv: string[]) => string[];
}): ClusterKubelet {
  const { dir, endpoint } = opts;
  const extraConfig = opts.extraConfig ?? [];
  const overridden = new Set(extraConfig.map(keyOf));
  const defaults = [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${endpoint}`, 'healthzPort: 0',
    'address: 127.0.0.1', `port: ${opts.port}`, 'readOnlyPort: 0',
    `authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: ${opts.clientCa}}}`,
    'authorization: {mode: Webhook}',
  ].filter((line) => !overridden.has(keyOf(line)));
  writeFileSync(join(dir, 'kubelet.yaml'), [...defaults, ...extraConfig, ''].join('\n'));
  const argv = [process.execPath,
    BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root', 'device-plugins')}`, ...opts.kubeconfigArgs,
    `--cert-dir=${join(dir, 'pki')}`, ...(endpoint === 'embedded' ? ['--embedded-runtime-allow-cluster'] : []), `--debug-address=${opts.debugAddress ?? ''}`,
    `--hostname-override=${opts.node}`, ...(opts.extraArgs ?? []),
  ];
  const [file, ...args] = opts.wrap ? opts.wrap(argv) : argv;
  const child = spawn(file!, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}) });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}

/** Stops it (SIGTERM) and waits for it to exit. */
export async function stopClusterKubelet(kubelet: ClusterKubelet | null): Promise<void> {
  if (!kubelet) return;
  if (kubelet.child.exitCode === null) kubelet.child.kill('SIGTERM');
  await kubelet.exited;
}
