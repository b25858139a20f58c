/**
 * `kubectl exec`, `kubectl attach` and `kubectl port-forward` — a real kubectl (Debian's
 * kubernetes-client 1.20 in CI, SPDY/3.1; KUBECTL names another binary) — and
 * @kubernetes/client-node's Exec, Attach and PortForward (WebSocket), through the real API server's
 * pods/exec, pods/attach and pods/portforward proxy (kube-lab.ts) to the real kubelet daemon, whose
 * kubelet server lets the API server in by its kubelet-client certificate and a real
 * SubjectAccessReview, then proxies each session on to the runtime's streaming server. The API
 * server dials the node by its Hostname address: the test makes the node's name resolve to
 * 127.0.0.1 while it runs (an /etc/hosts line, lab-node.ts).
 *
 * On the embedded runtime (its own streaming server: our SPDY module for kubectl, WebSocket for
 * client-node) and on containerd (KUBELET_IT_CRI; in CI it must run; its streaming server is
 * containerd's own). One kubelet per runtime serves every test.
 */
import '../apiserver/node20-compat.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { Attach, Exec, KubeConfig, PortForward, type V1Status } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/daemon.js';
import { kubeLabPart } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const PAGE = 'hello through port-forward\n';
/** streamingConnectionIdleTimeout for this suite: short enough to see, longer than any pause below. */
const IDLE_SECONDS = 3;

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

/** One container `main` running `script`; `ports`: its declared ports (the embedded runtime forwards to no other). */
function main(script: string, ports: number[] = []) {
  const declared = ports.length > 0 ? { ports: ports.map((containerPort) => ({ containerPort })) } : {};
  return { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', script], ...declared }] };
}

/** Collects what a stream receives. */
function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

/** A child's stdout and stderr, together. */
function said(child: ChildProcess): () => string {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return () => out;
}

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `kubectl exec, attach and port-forward through the real API server, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns: string;
  const spawned: ChildProcess[] = [];
  // The embedded runtime runs pods on the host's network: a port free there works on both runtimes.
  let httpPort: number;

  const kubectl = (args: string[], input?: string) => runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', ns, ...args], input === undefined ? {} : { input });
  const kubectlChild = (args: string[]) => {
    const child = spawn(n.lab.kubectl, [`--kubeconfig=${n.lab.adminKubeconfig}`, '-n', ns, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.push(child);
    return child;
  };
  const clientNode = () => {
    const kc = new KubeConfig();
    kc.loadFromFile(n.lab.adminKubeconfig);
    return kc;
  };

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-ex-${rt.name}`, endpoint: rt.endpoint, resolvable: true, extraConfig: () => [`streamingConnectionIdleTimeout: ${IDLE_SECONDS}s`] });
    ns = n.ns;
    httpPort = await freePort();
    await n.createPod('shell', main(SLEEP));
    // A tick each 0.3 s: the printer's pace, so attach has output to stream whenever it joins.
    await n.createPod('printer', main("trap 'exit 0' TERM; i=1; while :; do echo \"tick $i\"; i=$((i+1)); sleep 0.3; done"));
    // `busybox httpd` and a temp dir: the image's busybox on containerd, the host's on the embedded runtime.
    await n.createPod('web', main(`d=$(mktemp -d) && printf '${PAGE.replace('\n', '\\n')}' > $d/index.html && exec busybox httpd -f -p ${httpPort} -h $d`, [httpPort, n.port]));
    const running = async (name: string) => (await n.pod(name))?.status?.containerStatuses?.[0]?.state?.running !== undefined;
    await n.whileUp('the three pods to run', async () => (await Promise.all(['shell', 'printer', 'web'].map(running))).every(Boolean), 120_000);
    await n.untilProxied('printer');
  }, 180_000);

  afterAll(async () => {
    for (const c of spawned) if (c.exitCode === null) c.kill('SIGKILL');
    await n?.dispose();
  }, 120_000);

  it('kubectl exec prints both streams, passes stdin through and exits with the command\'s code', async () => {
    const r = await kubectl(['exec', 'shell', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(r.stdout, r.stderr).toBe('out\n');
    expect(r.stderr).toMatch(/^err\n/);
    expect(r.code).toBe(3);
    expect(await kubectl(['exec', 'shell', '--', 'true'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await kubectl(['exec', '-i', 'shell', '--', 'cat'], 'hello\nsecond line\n')).toEqual({ code: 0, stdout: 'hello\nsecond line\n', stderr: '' });
  }, 60_000);

  it('kubectl exec -it gets a terminal of the client\'s size', async () => {
    // `script` gives kubectl a terminal; its size is set before kubectl starts and sent as a resize,
    // which reaches the runtime after the command has started: the command waits for its terminal
    // to take that size (up to 10 s, polling: a shell has no event for a resize it can wait on).
    const waitForSize = 'i=0; while [ "$(stty size)" != "33 77" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done';
    const inner = `stty rows 33 cols 77; ${n.lab.kubectl} --kubeconfig=${n.lab.adminKubeconfig} -n ${ns} exec -it shell -- sh -c 'tty; ${waitForSize}; stty size'`;
    const child = spawn('script', ['-qec', inner, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    spawned.push(child);
    const out = said(child);
    const [code] = await once(child, 'close') as [number | null];
    expect(out()).toMatch(/\/dev\/pts\/\d+\r\n/);
    expect(out()).toContain('33 77\r\n');
    expect(code).toBe(0);
  }, 60_000);

  it('kubectl attach streams what the container prints from then on', async () => {
    const child = kubectlChild(['attach', 'printer']);
    const out = said(child);
    await n.whileUp('kubectl attach to show four ticks', () => (out().match(/tick \d+\n/g)?.length ?? 0) >= 4, 20_000);
    child.kill('SIGTERM');
    const ticks = [...out().matchAll(/tick (\d+)\n/g)].map((m) => Number(m[1]));
    // Consecutive lines, as the container prints them.
    expect(ticks.slice(1, 4)).toEqual([ticks[0]! + 1, ticks[0]! + 2, ticks[0]! + 3]);
  }, 60_000);

  it('kubectl port-forward carries 50 HTTP requests to the pod\'s server', async () => {
    const local = await freePort();
    const out = said(kubectlChild(['port-forward', 'pod/web', `${local}:${httpPort}`]));
    await n.whileUp('kubectl port-forward to listen', () => out().includes(`Forwarding from 127.0.0.1:${local}`), 20_000);
    // The server may still be starting: the first exchange is retried.
    await n.whileUp('the page through the forward', async () => (await fetch(`http://127.0.0.1:${local}/index.html`).catch(() => undefined))?.status === 200, 20_000);
    const bodies: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      const res = await fetch(`http://127.0.0.1:${local}/index.html`);
      expect(res.status).toBe(200);
      bodies.push(await res.text());
    }
    expect(bodies).toEqual(Array(50).fill(PAGE));
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
    const ws = await new Exec(clientNode()).exec(ns, 'shell', 'main', ['sh', '-c', 'echo out; echo err >&2; exit 3'],
      out.stream, err.stream, null, false, (s) => (status = s));
    await n.whileUp('the exec to end', () => status !== undefined || ws.readyState === ws.CLOSED, 20_000);
    await n.whileUp('the output', () => out.text() === 'out\n' && err.text() === 'err\n', 5_000);
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } });
    ws.close();
  }, 60_000);

  it('client-node\'s Attach (WebSocket) streams what the container prints', async () => {
    const out = sink();
    const ws = await new Attach(clientNode()).attach(ns, 'printer', 'main', out.stream, null, null, false);
    await n.whileUp('two ticks through Attach', () => (out.text().match(/tick \d+\n/g)?.length ?? 0) >= 2, 20_000);
    ws.close();
  }, 60_000);

  it.runIf(rt.endpoint === 'embedded')('port-forward on the embedded runtime refuses an undeclared port and the kubelet\'s own, saying why', async () => {
    // A port only the host has (the pod shares the host's network here), then the kubelet's own server, which the pod declares.
    const undeclared = await freePort();
    for (const [port, why] of [[undeclared, `declares no TCP containerPort ${undeclared}`], [n.port, 'is the kubelet\'s server port (port)']] as const) {
      const out = sink();
      const errors = sink();
      const ws = await new PortForward(clientNode()).portForward(ns, 'web', [port], out.stream, errors.stream, new PassThrough());
      await n.whileUp(`the refusal of port ${port}`, () => errors.text().includes(why), 20_000);
      expect(errors.text()).toContain(`error forwarding port ${port} to pod `);
      expect(out.text()).toBe('');
      (ws as { close: () => void }).close();
    }
  }, 60_000);

  it('client-node\'s PortForward (WebSocket) carries an HTTP exchange', async () => {
    const out = sink();
    // Kept open until the answer is in: client-node closes the socket when its input ends.
    const input = new PassThrough();
    const ws = await new PortForward(clientNode()).portForward(ns, 'web', [httpPort], out.stream, null, input);
    input.write('GET /index.html HTTP/1.0\r\nHost: pod\r\n\r\n');
    await n.whileUp('the page through PortForward', () => out.text().includes(PAGE), 20_000);
    expect(out.text()).toMatch(/^HTTP\/1\.[01] 200 OK\r\n/);
    input.end();
    (ws as { close: () => void }).close();
  }, 60_000);
});
