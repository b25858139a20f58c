/**
 * `kubectl logs` and `kubectl logs -f` — a real kubectl (Debian's kubernetes-client in CI; KUBECTL
 * names another binary) — through the test API server's pods/log proxy to the real kubelet daemon
 * in cluster mode, on the embedded runtime and on containerd (KUBELET_IT_CRI; in CI it must run).
 * The kubelet server lets the API server in as a cluster's does: its client certificate against
 * authentication.x509.clientCAFile, then a SubjectAccessReview (authorization mode Webhook).
 * The pod prints a numbered line every 0.3 s and exits: `-f` started while it prints sees the lines
 * written after it started, each once, and ends by itself once the container has stopped.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KUBELET_CLIENT_USER, startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { freePort, removePods, until } from '../support/daemon.js';
import { allOf, containerdEndpoint, describeNeeding, kubectlPart, partForEndpoint } from '../support/real-parts.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const LINES = 30;
const TICKER = `i=1; while [ $i -le ${LINES} ]; do echo "line $i"; i=$((i+1)); sleep 0.3; done`;
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join('');

interface Kubelet { child: ChildProcess; stderr: () => string; exited: Promise<number | null> }
interface Run { code: number | null; stdout: string; stderr: string }

async function startKubelet(dir: string, api: TestApiServer, endpoint: string, node: string, port: number): Promise<Kubelet> {
  const clientCa = join(dir, 'apiserver-kubelet-client-ca.crt');
  writeFileSync(clientCa, await api.kubeletClientCaPem());
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${endpoint}`, 'healthzPort: 0',
    'address: 127.0.0.1', `port: ${port}`, 'readOnlyPort: 0',
    `authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: ${clientCa}}}`,
    'authorization: {mode: Webhook}', '',
  ].join('\n'));
  const child = spawn(process.execPath, [
    BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--kubeconfig=${api.kubeconfigPath(dir)}`,
    `--cert-dir=${join(dir, 'pki')}`, ...(endpoint === 'embedded' ? ['--embedded-runtime-allow-cluster'] : []), '--debug-address=',
    `--hostname-override=${node}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(allOf(kubectlPart(KUBECTL), partForEndpoint(rt.endpoint)), `kubectl logs on the ${rt.name} runtime`, () => {
  const node = `node-logs-${rt.name}`;
  let dir: string;
  let api: TestApiServer;
  let kubelet: Kubelet | null = null;
  let kubeconfig: string;
  const reviewed: string[] = [];

  const kubectl = (...args: string[]): Promise<Run> => new Promise((done) => {
    execFile(KUBECTL, [`--kubeconfig=${kubeconfig}`, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
  const context = () => kubelet?.stderr() ?? '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kts-kubectl-logs-'));
    // Over TLS: kubectl sends no bearer token to a plain-HTTP server.
    api = await startTestApiServer({ tls: true, kubeletDialHost: '127.0.0.1' });
    api.reviews.authorize = (spec) => {
      reviewed.push(spec.user ?? '');
      return { allowed: spec.user === KUBELET_CLIENT_USER };
    };
    kubeconfig = api.kubeconfigPath(dir, { fileName: 'kubectl.kubeconfig' });
    kubelet = await startKubelet(dir, api, rt.endpoint, node, await freePort());
  }, 60_000);
  afterAll(async () => {
    if (kubelet) {
      if (kubelet.child.exitCode === null) kubelet.child.kill('SIGTERM');
      await kubelet.exited;
    }
    await api.close();
    await removePods({ endpoint: rt.endpoint, rootDir: join(dir, 'root') });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('follows with -f: the lines written after it started, each once, to its end when the container stops', async () => {
    api.store.create('pods', {
      metadata: { name: 'ticker', namespace: 'default' },
      spec: {
        nodeName: node, restartPolicy: 'Never', terminationGracePeriodSeconds: 1,
        containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', TICKER] }],
      },
    });
    // Without -f: what was printed so far, and no more.
    const sofar = await until('kubectl logs to show the first lines', async () => {
      const r = await kubectl('logs', 'ticker');
      return r.code === 0 && r.stdout.includes('line 3\n') ? r.stdout : undefined;
    }, 120_000, context);
    const printed = sofar.split('\n').filter(Boolean).length;
    expect(sofar).toBe(numbered(1, printed));
    expect(printed).toBeLessThan(LINES - 5);

    const startedAt = Date.now();
    const follow = spawn(KUBECTL, [`--kubeconfig=${kubeconfig}`, 'logs', '-f', 'ticker'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let lastLineAt = 0;
    follow.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(`line ${LINES}\n`) && lastLineAt === 0) lastLineAt = Date.now();
    });
    follow.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => follow.once('exit', r));
    const endedAt = Date.now();

    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toBe(numbered(1, LINES));
    // The last line came while it followed (the container was still printing when it started)…
    expect(lastLineAt - startedAt).toBeGreaterThan(2000);
    // …and it ended by itself soon after, once the kubelet saw the container stop.
    expect(endedAt - lastLineAt).toBeLessThan(15_000);
    const phase = () => (api.store.get('pods', 'default', 'ticker') as { status?: { phase?: string } } | undefined)?.status?.phase;
    await until('the pod to have succeeded', () => phase() === 'Succeeded', 15_000, context);
    // The kubelet let the API server in by its certificate and a SubjectAccessReview.
    expect(reviewed).toContain(KUBELET_CLIENT_USER);
  }, 180_000);

  it('answers --tail and a -f of a stopped container at once', async () => {
    expect(await kubectl('logs', 'ticker', '--tail=2')).toEqual({ code: 0, stdout: numbered(LINES - 1, LINES), stderr: '' });
    const started = Date.now();
    expect(await kubectl('logs', '-f', 'ticker')).toEqual({ code: 0, stdout: numbered(1, LINES), stderr: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('says what the API server said for an unknown pod or container', async () => {
    const pod = await kubectl('logs', 'nope');
    expect(pod.code).toBe(1);
    // kubectl reads the pod before its log; its wording of the 404 changed between versions.
    expect(pod.stderr).toMatch(/error from server \(NotFound\): pods "nope" not found/i);
    const container = await kubectl('logs', 'ticker', '-c', 'nope');
    expect(container.code).toBe(1);
    expect(container.stderr).toContain('container nope is not valid for pod ticker');
  }, 60_000);
});
