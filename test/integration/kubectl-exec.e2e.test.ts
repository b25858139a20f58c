/**
 * `kubectl exec`, `kubectl attach` and `kubectl port-forward` — a real kubectl (Debian's
 * kubernetes-client 1.20 in CI, SPDY/3.1; KUBECTL names another binary) — and
 * @kubernetes/client-node's Exec, Attach and PortForward (WebSocket), through the test API
 * server's pods/exec, attach and portforward proxy to the real kubelet daemon in cluster mode, whose
 * kubelet server proxies each session on to the runtime's streaming server (issue 16).
 *
 * Parametrised by runtime like kubectl-logs.e2e.test.ts: the embedded runtime (its own streaming
 * server: our SPDY module for kubectl, WebSocket for client-node) and containerd (KUBELET_IT_CRI; in
 * CI it must run; its streaming server is containerd's own).
 */
import '../apiserver/node20-compat.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { Attach, Exec, KubeConfig, PortForward, type V1Status } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KUBELET_CLIENT_USER, type TestApiServer } from '../apiserver/index.js';
import { startKubectlCluster, type KubectlCluster } from '../support/cluster-kubelet.js';
import { freePort, until } from '../support/daemon.js';
import { runKubectl } from '../support/kubectl-run.js';
import { allOf, containerdEndpoint, describeNeeding, kubectlPart, partForEndpoint } from '../support/real-parts.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const IMAGE = 'kubelet-ts.local/busybox:1.0';
const PAGE = 'hello through port-forward\n';
/** streamingConnectionIdleTimeout for this suite: short enough to see, longer than any pause below. */
const IDLE_SECONDS = 3;

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

/** A pod with one container `main` running `script`, stopped quickly. */
/** `ports`: the container's declared ports (the embedded runtime forwards to no other). */
function pod(name: string, node: string, script: string, ports: number[] = []) {
  const declared = ports.length > 0 ? { ports: ports.map((containerPort) => ({ containerPort })) } : {};
  return {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', script], ...declared }] },
  };
}

/** Collects what a stream receives. */
function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

for (const rt of RUNTIMES) describeNeeding(allOf(kubectlPart(KUBECTL), partForEndpoint(rt.endpoint)), `kubectl exec, attach and port-forward on the ${rt.name} runtime`, () => {
  const node = `node-exec-${rt.name}`;
  let cluster: KubectlCluster | undefined;
  let api: TestApiServer;
  let kubeconfig: string;
  const spawned: ChildProcess[] = [];
  // The embedded runtime runs pods on the host's network: a port free there works on both runtimes.
  let httpPort: number;

  const kubectl = (args: string[], input?: string) => runKubectl(KUBECTL, kubeconfig, args, input === undefined ? {} : { input });
  const context = () => cluster?.kubelet.stderr() ?? '';
  const clientNode = () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    return kc;
  };

  beforeAll(async () => {
    cluster = await startKubectlCluster('kts-kubectl-exec-', rt.endpoint, node, [`streamingConnectionIdleTimeout: ${IDLE_SECONDS}s`]);
    ({ api, kubeconfig } = cluster);
    api.store.create('pods', pod('shell', node, "trap 'exit 0' TERM; while :; do sleep 1; done"));
    api.store.create('pods', pod('printer', node, "trap 'exit 0' TERM; i=1; while :; do echo \"tick $i\"; i=$((i+1)); sleep 0.3; done"));
    httpPort = await freePort();
    // `busybox httpd` and a temp dir: the image's busybox on containerd, the host's on the embedded runtime.
    api.store.create('pods', pod('web', node, `d=$(mktemp -d) && printf '${PAGE.replace('\n', '\\n')}' > $d/index.html && exec busybox httpd -f -p ${httpPort} -h $d`, [httpPort, cluster.kubeletPort]));
    const running = (name: string) => {
      const p = api.store.get('pods', 'default', name) as { status?: { containerStatuses?: { state?: { running?: object } }[] } } | undefined;
      return p?.status?.containerStatuses?.[0]?.state?.running !== undefined;
    };
    await until('the three pods to run', () => ['shell', 'printer', 'web'].every(running), 120_000, context);
  }, 180_000);
  afterAll(async () => {
    for (const c of spawned) if (c.exitCode === null) c.kill('SIGKILL');
    await cluster?.dispose();
  }, 60_000);

  it('kubectl exec prints both streams and exits with the command\'s code', async () => {
    const r = await kubectl(['exec', 'shell', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(r.stdout, r.stderr).toBe('out\n');
    expect(r.stderr).toContain('err\n');
    expect(r.code).toBe(3);
    // The kubelet let the API server in by its certificate and a SubjectAccessReview.
    expect(cluster!.reviewed).toContain(KUBELET_CLIENT_USER);
    expect(await kubectl(['exec', 'shell', '--', 'true'])).toEqual({ code: 0, stdout: '', stderr: '' });
  }, 60_000);

  it('kubectl exec -i passes stdin through', async () => {
    const r = await kubectl(['exec', '-i', 'shell', '--', 'cat'], 'hello\nsecond line\n');
    expect(r).toEqual({ code: 0, stdout: 'hello\nsecond line\n', stderr: '' });
  }, 60_000);

  it('kubectl exec -it gets a terminal of the client\'s size', async () => {
    // `script` gives kubectl a terminal; its size is set before kubectl starts and sent as a resize,
    // which reaches the runtime after the command has started: the command waits a moment for it.
    const inner = `stty rows 33 cols 77; ${KUBECTL} --kubeconfig=${kubeconfig} exec -it shell -- sh -c 'tty; sleep 1; stty size'`;
    const child = spawn('script', ['-qec', inner, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    spawned.push(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = await once(child, 'close') as [number | null];
    expect(out).toMatch(/\/dev\/pts\/\d+\r\n/);
    expect(out).toContain('33 77\r\n');
    expect(code).toBe(0);
  }, 60_000);

  it('kubectl attach streams what the container prints from then on', async () => {
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig}`, 'attach', 'printer'], { stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await until('kubectl attach to show four ticks', () => (out.match(/tick \d+\n/g)?.length ?? 0) >= 4, 20_000, () => `${out}\n${err}`);
    child.kill('SIGTERM');
    const ticks = [...out.matchAll(/tick (\d+)\n/g)].map((m) => Number(m[1]));
    // Consecutive lines, as the container prints them.
    expect(ticks.slice(1, 4)).toEqual([ticks[0]! + 1, ticks[0]! + 2, ticks[0]! + 3]);
  }, 60_000);

  it('kubectl port-forward carries 50 HTTP requests to the pod\'s server', async () => {
    const local = await freePort();
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig}`, 'port-forward', 'web', `${local}:${httpPort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.push(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await until('kubectl port-forward to listen', () => out.includes(`Forwarding from 127.0.0.1:${local}`), 20_000, () => out);
    const bodies: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const res = await fetch(`http://127.0.0.1:${local}/index.html`);
      expect(res.status).toBe(200);
      bodies.push(await res.text());
    }
    expect(bodies).toEqual(Array(50).fill(PAGE));
    child.kill('SIGTERM');
  }, 90_000);

  it('closes a session silent for streamingConnectionIdleTimeout', async () => {
    const started = Date.now();
    const r = await kubectl(['exec', 'shell', '--', 'sh', '-c', `sleep ${IDLE_SECONDS * 4}; echo late`]);
    const took = Date.now() - started;
    // Cut before the command printed; kubectl 1.20 reads a connection that just ends as the end of
    // the streams (no status), so its exit code says nothing here.
    expect(r.stdout).toBe('');
    expect(took).toBeGreaterThan(IDLE_SECONDS * 1000 - 500);
    expect(took).toBeLessThan(IDLE_SECONDS * 4000 - 2000);
  }, 60_000);

  it('says what the kubelet said for a container that is not there', async () => {
    const r = await kubectl(['exec', 'shell', '-c', 'nope', '--', 'true']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('container nope is not valid for pod shell');
  }, 60_000);

  it('client-node\'s Exec (WebSocket) gets both streams and the exit code', async () => {
    const out = sink();
    const err = sink();
    let status: V1Status | undefined;
    const ws = await new Exec(clientNode()).exec('default', 'shell', 'main', ['sh', '-c', 'echo out; echo err >&2; exit 3'],
      out.stream, err.stream, null, false, (s) => (status = s));
    await until('the exec to end', () => status !== undefined || ws.readyState === ws.CLOSED, 20_000);
    await until('the output', () => out.text() === 'out\n' && err.text() === 'err\n', 5_000, () => `${out.text()}|${err.text()}`);
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } });
    ws.close();
  }, 60_000);

  it('client-node\'s Attach (WebSocket) streams what the container prints', async () => {
    const out = sink();
    const ws = await new Attach(clientNode()).attach('default', 'printer', 'main', out.stream, null, null, false);
    await until('two ticks through Attach', () => (out.text().match(/tick \d+\n/g)?.length ?? 0) >= 2, 20_000, out.text);
    ws.close();
  }, 60_000);

  it.runIf(rt.endpoint === 'embedded')('port-forward on the embedded runtime refuses an undeclared port and the kubelet\'s own, saying why', async () => {
    // A port only the host has (the pod shares the host's network here), then the kubelet's own server, which the pod declares.
    const undeclared = await freePort();
    for (const [port, why] of [[undeclared, `declares no TCP containerPort ${undeclared}`], [cluster!.kubeletPort, 'is the kubelet\'s server port (port)']] as const) {
      const out = sink();
      const errors = sink();
      const ws = await new PortForward(clientNode()).portForward('default', 'web', [port], out.stream, errors.stream, new PassThrough());
      await until(`the refusal of port ${port}`, () => errors.text().includes(why), 20_000, errors.text);
      expect(errors.text()).toContain(`error forwarding port ${port} to pod `);
      expect(out.text()).toBe('');
      (ws as { close: () => void }).close();
    }
  }, 60_000);

  it('client-node\'s PortForward (WebSocket) carries an HTTP exchange', async () => {
    const out = sink();
    // Kept open until the answer is in: client-node closes the socket when its input ends.
    const input = new PassThrough();
    const ws = await new PortForward(clientNode()).portForward('default', 'web', [httpPort], out.stream, null, input);
    input.write('GET /index.html HTTP/1.0\r\nHost: pod\r\n\r\n');
    await until('the page through PortForward', () => out.text().includes(PAGE), 20_000, out.text);
    expect(out.text()).toMatch(/^HTTP\/1\.[01] 200 OK\r\n/);
    input.end();
    (ws as { close: () => void }).close();
  }, 60_000);
});
