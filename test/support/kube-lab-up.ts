/**
 * Bringing up the real control plane of ../shared/lab/kube in a directory, once, and talking to its
 * API server as system:masters. No vitest import: the benchmarks use it too (kube-lab.ts gives the
 * tests one lab per run on top of it).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { kubectlBin, runScript, scriptEnv } from './kube-lab-scripts.js';

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

// Under the lock: up once; its exports kept in .up.env, or its failure in .up.failed. up.sh's own
// free ports come from the ephemeral range, where any process's connect() or listen(0) may take one
// before the daemon binds it (a busy CI run did): the ports are chosen here, below that range, and a
// start that still lost a port is stopped and tried again on new ones, with a fresh etcd.
const UP_ONCE = `
set -u
D=$KUBE_LAB
if [ -s "$D/.up.env" ]; then exit 0; fi
if [ -s "$D/.up.failed" ]; then cat "$D/.up.failed" >&2; exit 1; fi
ports() { python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
picked = []
while len(picked) < 3:
    port = random.randrange(max(1024, low - 10000), low)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); picked.append(port)
    except OSError:
        pass
    finally:
        s.close()
print("API_PORT=%d ETCD_PORT=%d ETCD_PEER=%d" % tuple(picked))'; }
for attempt in 1 2 3; do
  [ -s "$D/ports" ] || ports > "$D/ports"
  if bash "$1/up.sh" > "$D/.up.env.tmp" 2> "$D/.up.log"; then mv "$D/.up.env.tmp" "$D/.up.env"; exit 0; fi
  grep -qs 'address already in use' "$D/.up.log" "$D"/logs/*.log || break
  echo "up-once: attempt $attempt lost a port; again on new ones" >> "$D/.up.retries"
  bash "$1/down.sh" >/dev/null 2>&1; rm -rf "$D/ports" "$D/etcd" "$D"/logs/*.log
done
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

/** TLS options for the API server as system:masters (the admin client certificate). */
export function adminTls(lab: Pick<KubeLab, 'dir' | 'ca'>): { ca: Buffer; cert: Buffer; key: Buffer } {
  const pki = join(lab.dir, 'pki');
  return { ca: readFileSync(lab.ca), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) };
}

/**
 * A request to the API server as system:masters (the admin client certificate); the body parsed as
 * JSON. A PATCH names its kind by `contentType` (application/strategic-merge-patch+json, say).
 */
export function labApi<T = unknown>(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: T }> {
  return labRequest(lab, method, path, 'application/json', body, contentType).then(({ status, text }) => {
    try {
      return { status, body: (text ? JSON.parse(text) : undefined) as T };
    } catch {
      throw new Error(`${method} ${path}: ${status} with a body that is not JSON: ${text.slice(0, 300)}`);
    }
  });
}

/**
 * A pod's log as client-go's RESTClient asks for it (the e2e framework's GetPodLogs: GET pods/NAME/log
 * with `container` and `previous`, Accept `application/json, *\/*`): the text, or the API server's
 * Status when it refused (a 400 from the kubelet comes back as a BadRequest Status with its words).
 */
export async function labPodLog(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, ns: string, pod: string, container: string, previous = false): Promise<{ status: number; text: string }> {
  const query = new URLSearchParams({ container, previous: String(previous) });
  return labRequest(lab, 'GET', `/api/v1/namespaces/${ns}/pods/${pod}/log?${query}`, 'application/json, */*');
}

function labRequest(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, method: string, path: string, accept: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const url = new URL(path, lab.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent: false, ...adminTls(lab),
      // A length, always: Node sends a DELETE's body unframed (not chunked), and the API server never reads it.
      headers: { accept, ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }) },
    }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', fail);
    req.end(payload);
  });
}

/**
 * Watches `path` (a list path; `watch=1` is added) as system:masters, calling `onEvent` with each
 * event the API server sends, until `stop()`.
 */
export function labWatch<T = unknown>(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, path: string, onEvent: (event: { type: string; object: T }) => void): { stop: () => void } {
  const url = new URL(path, lab.server);
  url.searchParams.set('watch', '1');
  let pending = '';
  const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, agent: false, ...adminTls(lab), headers: { accept: 'application/json' } }, (res) => {
    res.on('data', (d: Buffer) => {
      const lines = (pending + d.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) onEvent(JSON.parse(line) as { type: string; object: T });
    });
  });
  // A watch stopped by stop() ends in an abort: nothing to report.
  req.on('error', () => undefined);
  req.end();
  return { stop: () => req.destroy() };
}
