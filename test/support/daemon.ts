/**
 * What the end-to-end tests of the real binary share: waiting for a condition, a free loopback port,
 * and removing the pods a test left in a runtime (they outlive the kubelet, as with the Go kubelet).
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import type { CriClient } from '../../src/ports/cri.js';
import { startEmbeddedRuntime } from '../../src/adapters/embedded-runtime/index.js';
import { KUBELET_BIN as BIN } from './kubelet-bin.js';

/** Polls `probe` (vi.waitUntil) until it gives a truthy value; the error names `what`, the last value and `context()`. */
export async function until<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 30_000, context: () => string = () => ''): Promise<T> {
  let last: unknown;
  const attempt = async (): Promise<T | undefined | null | false> => {
    try {
      const v = await probe();
      if (!v) last = v;
      return v;
    } catch (err) {
      last = err;
      return false;
    }
  };
  try {
    return (await vi.waitUntil(attempt, { timeout: ms, interval: 200 })) as T;
  } catch {
    throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last instanceof Error ? last.message : last)})\n${context().slice(-3000)}`);
  }
}

export { freePort } from '../../bench/free-port.js';

/**
 * Runs `work` with a CRI client on `endpoint` — or, for the embedded runtime, on a fresh embedded
 * runtime over the kubelet's state dir (`<rootDir>/embedded-runtime`; the kubelet must be stopped).
 */
export async function withRuntime<T>(opts: { endpoint: string; rootDir: string }, work: (cri: CriClient) => Promise<T>): Promise<T> {
  const embedded = opts.endpoint === 'embedded';
  const runtime = embedded
    ? await startEmbeddedRuntime({ socketPath: join(opts.rootDir, 'cleanup.sock'), stateDir: join(opts.rootDir, 'embedded-runtime') })
    : null;
  const cri = createCriClient({ endpoint: runtime?.endpoint ?? opts.endpoint });
  try {
    return await work(cri);
  } finally {
    cri.close();
    await runtime?.close();
  }
}

/** Stops and removes the sandboxes `select` picks (all without it), through withRuntime. */
export async function removePods(opts: { endpoint: string; rootDir: string; select?: (sandboxName: string) => boolean }): Promise<void> {
  await withRuntime(opts, async (cri) => {
    for (const s of await cri.runtime.listPodSandbox()) {
      if (opts.select && !opts.select(s.metadata.name)) continue;
      // A container the stopped kubelet was starting stays in containerd's "starting" state until runc's
      // start returns, and cannot be removed until then ("container is in starting state"): try again.
      await vi.waitFor(async () => {
        for (const c of await cri.runtime.listContainers({ pod_sandbox_id: s.id })) await cri.runtime.stopContainer(c.id, 0).catch(() => {});
        await cri.runtime.stopPodSandbox(s.id).catch(() => {});
        await cri.runtime.removePodSandbox(s.id);
      }, { timeout: 15_000, interval: 250 });
    }
  });
}

export interface StaticPodKubelet {
  /** The kubelet's own directory: manifests/, logs/, root/. */
  dir: string;
  manifests: string;
  logs: string;
  root: string;
  /** host:port of the debug server. */
  debug: string;
  stderr: () => string;
  child: ChildProcess;
  /** SIGTERM and wait for the exit code (idempotent). */
  stop: () => Promise<number | null>;
  /** Stop the kubelet, remove its pods through the runtime (they outlive it, as in Go), delete `dir`. */
  dispose: (select?: (sandboxName: string) => boolean) => Promise<void>;
}

/**
 * The real binary, standalone, with a manifest directory and the debug server on a free loopback
 * port: what the end-to-end and browser tests start. `config` adds KubeletConfiguration lines.
 */
export async function startStaticPodKubelet(opts: {
  endpoint: string; nodeName: string; config?: string[]; args?: string[]; prefix?: string;
  /** Serve the kubelet server on 127.0.0.1:serverPort, its certificate generated into `<dir>/pki` (off when absent). */
  serverPort?: number;
  /** The `dir` of an earlier kubelet that was stopped: start again on its root dir and manifests (a restart). */
  dir?: string;
  /** Added to the kubelet's environment. */
  env?: Record<string, string>;
  /** Commands the kubelet is started under, which must exec it in the end (its pid is the child's). */
  wrap?: [string, ...string[]];
}): Promise<StaticPodKubelet> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), opts.prefix ?? 'kts-kubelet-'));
  const manifests = join(dir, 'manifests');
  const logs = join(dir, 'logs');
  const root = join(dir, 'root');
  mkdirSync(manifests, { recursive: true });
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `staticPodPath: ${manifests}`, `podLogsDir: ${logs}`, `containerRuntimeEndpoint: ${opts.endpoint}`,
    'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
    ...(opts.serverPort === undefined ? ['enableServer: false'] : ['address: 127.0.0.1', `port: ${opts.serverPort}`]), 'healthzPort: 0', ...(opts.config ?? []), '',
  ].join('\n'));
  const argv = [
    BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${root}`, `--device-plugins-dir=${join(root, 'device-plugins')}`, `--cert-dir=${join(dir, 'pki')}`, '--debug-address=127.0.0.1:0', `--hostname-override=${opts.nodeName}`, ...(opts.args ?? []),
  ];
  const options: SpawnOptions = { stdio: ['ignore', 'ignore', 'pipe'], ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}) };
  const child = opts.wrap ? spawn(opts.wrap[0], [...opts.wrap.slice(1), process.execPath, ...argv], options) : spawn(process.execPath, argv, options);
  let stderr = '';
  let debug = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    debug ||= /"address":"(127\.0\.0\.1:\d+)","msg":"Debug server listening"/.exec(stderr)?.[1] ?? '';
  });
  let exited: Promise<number | null> | null = null;
  const stop = () => {
    exited ??= new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));
    child.kill('SIGTERM');
    return exited;
  };
  await until('the debug server', () => debug !== '' || child.exitCode !== null, 30_000, () => stderr);
  if (child.exitCode !== null) throw new Error(`the kubelet exited at start:\n${stderr.slice(-3000)}`);
  // The kubelet server starts in a later phase than the debug server: tests may ask it at once.
  if (opts.serverPort !== undefined) {
    const listening = `"msg":"Starting to listen"`;
    await until('the kubelet server', () => stderr.includes(listening) || child.exitCode !== null, 30_000, () => stderr);
    if (child.exitCode !== null) throw new Error(`the kubelet exited at start:\n${stderr.slice(-3000)}`);
  }
  return {
    dir, manifests, logs, root, debug, child, stop,
    stderr: () => stderr,
    dispose: async (select) => {
      await stop();
      await removePods({ endpoint: opts.endpoint, rootDir: root, ...(select ? { select } : {}) });
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The volumes of pods still there when the kubelet stopped stay mounted (tmpfs): unmounted, so nothing deletes through them. */
export function unmountUnder(dir: string): void {
  const mounted = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4] ?? '').filter((p) => p.startsWith(`${dir}/`));
  for (const point of mounted.reverse()) execFileSync('umount', [point]);
}

export interface HttpsAuth { cert?: Buffer; key?: Buffer; token?: string }

/** GET over TLS from the kubelet server on loopback (its certificate is self-signed), with optional credentials. */
export async function httpsGet(port: number, path: string, auth: HttpsAuth = {}): Promise<{ status: number; body: string }> {
  const { status, body } = await httpsRequest(port, path, { auth });
  return { status, body };
}

/** Any request over TLS to the kubelet server on loopback; the path is sent as given (no normalising). */
export function httpsRequest(
  port: number,
  path: string,
  opts: { method?: string; auth?: HttpsAuth; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  const auth = opts.auth ?? {};
  return new Promise((done, fail) => {
    const req = request({
      host: '127.0.0.1', port, path, method: opts.method ?? 'GET', rejectUnauthorized: false, agent: false,
      ...(auth.cert ? { cert: auth.cert, key: auth.key } : {}),
      headers: { ...opts.headers, ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}) },
    }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', fail);
    req.end(opts.body);
  });
}
