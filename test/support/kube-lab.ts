/**
 * The real control plane (kube-apiserver, kube-controller-manager, kube-scheduler v1.26 over etcd) that
 * `../shared/lab/kube/up.sh` brings up on free loopback ports. One per vitest run: the global setup
 * (kube-lab.global-setup.ts) names an empty directory and purges it after the run; the first test
 * file that calls kubeLab() starts the lab in it, under flock(1), and every later file, in any
 * worker, finds it up. A failed start is written down too, so later files fail at once with the same
 * reason instead of each waiting for up.sh again. The scripts' own directory is never written to
 * (up.sh writes only under KUBE_LAB): in CI it is a read-only copy.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { delimiter, join } from 'node:path';
import { inject } from 'vitest';
import { kubectlBin, kubeLabScripts, runScript, scriptEnv } from './kube-lab-scripts.js';
import type { RealPart } from './real-parts.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory the run's control plane lives in (started by the first file that needs it). */
    kubeLabDir: string;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What the lab needs: its scripts, kubectl, and etcd (up.sh installs Debian's etcd-server itself when it runs as root). */
export function kubeLabPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  const scripts = kubeLabScripts(env);
  const missing = [
    existsSync(join(scripts, 'up.sh')) ? '' : `the real control plane's scripts are absent (${scripts}: ../shared/lab/kube beside the repository, or set KUBELET_IT_KUBE_LAB_SCRIPTS)`,
    existsSync(kubectlBin(env)) ? '' : `kubectl is not installed at ${kubectlBin(env)} (apt-get install kubernetes-client)`,
    onPath('etcd', env) || process.getuid?.() === 0 ? '' : 'etcd is not installed and up.sh cannot install it without root (apt-get install etcd-server)',
  ].filter(Boolean);
  return { name: 'the real control plane (../shared/lab/kube)', missing: missing.join('; ') };
}

export interface KubeLab {
  dir: string;
  scripts: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** The lab's CA: it signs the apiserver's serving certificate and every client certificate. */
  ca: string;
  /** A kubeconfig for system:masters. */
  adminKubeconfig: string;
  kubectl: string;
}

// Under the lock: up once; its exports kept in .up.env, or its failure in .up.failed.
const UP_ONCE = `
set -u
D=$KUBE_LAB
if [ -s "$D/.up.env" ]; then exit 0; fi
if [ -s "$D/.up.failed" ]; then cat "$D/.up.failed" >&2; exit 1; fi
if bash "$1/up.sh" > "$D/.up.env.tmp" 2> "$D/.up.log"; then mv "$D/.up.env.tmp" "$D/.up.env"; exit 0; fi
tail -n 15 "$D/.up.log" > "$D/.up.failed"; [ -s "$D/.up.failed" ] || echo "up.sh said nothing" > "$D/.up.failed"
cat "$D/.up.failed" >&2; exit 1
`;

/**
 * Brings the lab up in `dir` with the scripts in `scripts`, or finds it up: once per directory, whoever
 * asks and however many at once; a failure is kept and given to every later caller.
 */
export async function upOnce(dir: string, scripts: string): Promise<KubeLab> {
  // --close: the daemons up.sh leaves running must not hold the lock, or every later caller waits for them.
  await runScript('flock', ['--close', join(dir, '.lock'), 'bash', '-c', UP_ONCE, 'up-once', scripts], scriptEnv(dir), 240_000, `bringing up the real control plane (${scripts}/up.sh, KUBE_LAB=${dir})`);
  const file = join(dir, '.up.env');
  const exports = Object.fromEntries([...readFileSync(file, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const need = (key: string) => {
    const value = exports[key];
    if (!value) throw new Error(`up.sh printed no ${key} (${file})`);
    return value;
  };
  return { dir, scripts, server: need('KUBE_LAB_SERVER'), ca: need('KUBE_LAB_CA'), adminKubeconfig: need('KUBECONFIG'), kubectl: kubectlBin() };
}

let started: Promise<KubeLab> | undefined;

/** The run's control plane, started on first use. */
export function kubeLab(): Promise<KubeLab> {
  started ??= upOnce(inject('kubeLabDir'), kubeLabScripts());
  return started;
}

/** A bootstrap kubeconfig with a new bootstrap token, as `kubeadm join` writes one; its token id names the CSR's user. */
export async function bootstrapKubeconfig(lab: KubeLab): Promise<{ text: string; tokenId: string }> {
  const text = await runScript('bash', [join(lab.scripts, 'bootstrap-kubeconfig.sh')], scriptEnv(lab.dir), 60_000);
  const tokenId = /token: "?([a-z0-9]{6})\./.exec(text)?.[1];
  if (!tokenId) throw new Error(`bootstrap-kubeconfig.sh wrote no bootstrap token:\n${text}`);
  return { text, tokenId };
}


/** A request to the API server as system:masters (the admin client certificate); the body parsed as JSON. */
export function labApi<T = unknown>(lab: KubeLab, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const pki = join(lab.dir, 'pki');
  const url = new URL(path, lab.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent: false,
      ca: readFileSync(lab.ca), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')),
      // A length, always: Node sends a DELETE's body unframed (not chunked), and the API server never reads it.
      headers: { accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
    }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        try {
          done({ status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : undefined) as T });
        } catch {
          fail(new Error(`${method} ${path}: ${res.statusCode} with a body that is not JSON: ${text.slice(0, 300)}`));
        }
      });
    });
    req.on('error', fail);
    req.end(payload);
  });
}
