/**
 * `kubectl logs` and `kubectl logs -f` — a real kubectl (Debian's kubernetes-client in CI; KUBECTL
 * names another binary) — through the test API server's pods/log proxy to the real kubelet daemon
 * in cluster mode, on the embedded runtime and on containerd (KUBELET_IT_CRI; in CI it must run).
 * The kubelet server lets the API server in as a cluster's does (support/cluster-kubelet.ts).
 * The pod prints a numbered line every 0.3 s and exits: `-f` started while it prints sees the lines
 * written after it started, each once, and ends by itself once the container has stopped. A pod
 * whose container restarts: `-f` follows the running instance to its end (the kubelet's follow ends
 * with the instance it follows, as Go's does), `--previous` shows the instance before it.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KUBELET_CLIENT_USER, type TestApiServer } from '../apiserver/index.js';
import { until } from '../support/daemon.js';
import { allOf, containerdEndpoint, describeNeeding, kubectlPart, partForEndpoint } from '../support/real-parts.js';
import { startKubectlCluster, type KubectlCluster } from '../support/cluster-kubelet.js';
import { runKubectl } from '../support/kubectl-run.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const LINES = 30;
const TICKER = `i=1; while [ $i -le ${LINES} ]; do echo "line $i"; i=$((i+1)); sleep 0.3; done`;
const RUN_LINES = 12;
const runLines = (n: number) => Array.from({ length: RUN_LINES }, (_, i) => `run ${n} line ${i + 1}\n`).join('');
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join('');

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(allOf(kubectlPart(KUBECTL), partForEndpoint(rt.endpoint)), `kubectl logs on the ${rt.name} runtime`, () => {
  const node = `node-logs-${rt.name}`;
  let cluster: KubectlCluster | undefined;
  let api: TestApiServer;
  let kubeconfig: string;

  const kubectl = (...args: string[]) => runKubectl(KUBECTL, kubeconfig, args);
  const context = () => cluster?.kubelet.stderr() ?? '';

  beforeAll(async () => {
    cluster = await startKubectlCluster('kts-kubectl-logs-', rt.endpoint, node);
    ({ api, kubeconfig } = cluster);
  }, 60_000);
  afterAll(async () => {
    await cluster?.dispose();
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
    expect(cluster!.reviewed).toContain(KUBELET_CLIENT_USER);
  }, 180_000);

  it('answers --tail and a -f of a stopped container at once', async () => {
    expect(await kubectl('logs', 'ticker', '--tail=2')).toEqual({ code: 0, stdout: numbered(LINES - 1, LINES), stderr: '' });
    const started = Date.now();
    expect(await kubectl('logs', '-f', 'ticker')).toEqual({ code: 0, stdout: numbered(1, LINES), stderr: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('follows a restarted container: -f streams the running instance to its end, --previous the one before', async () => {
    // An emptyDir outlives the container's restarts: each instance numbers itself there.
    const run = 'n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; '
      + `i=1; while [ $i -le ${RUN_LINES} ]; do echo "run $n line $i"; i=$((i+1)); sleep 0.5; done; exit 1`;
    api.store.create('pods', {
      metadata: { name: 'restarter', namespace: 'default' },
      spec: {
        nodeName: node, restartPolicy: 'Always', terminationGracePeriodSeconds: 1, volumes: [{ name: 'data', emptyDir: {} }],
        containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', run], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      },
    });
    // The first restart comes after Go's 10 s back-off.
    await until('the second instance to print', async () => {
      const r = await kubectl('logs', 'restarter');
      return r.code === 0 && r.stdout.startsWith('run 2 line 1\n');
    }, 120_000, context);
    const follow = kubectl('logs', '-f', 'restarter');
    expect(await kubectl('logs', '--previous', 'restarter')).toEqual({ code: 0, stdout: runLines(1), stderr: '' });
    expect(await follow).toEqual({ code: 0, stdout: runLines(2), stderr: '' });
  }, 180_000);

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
