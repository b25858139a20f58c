/**
 * `kubectl logs` and `kubectl logs -f` — a real kubectl (Debian's kubernetes-client in CI; KUBECTL
 * names another binary) — through the real API server's pods/log proxy (kube-lab.ts) to the real
 * kubelet daemon, on the embedded runtime and on containerd (KUBELET_IT_CRI; in CI it must run). The
 * API server dials the node by its Hostname address: the test makes the node's name resolve to
 * 127.0.0.1 while it runs (an /etc/hosts line, lab-node.ts); the kubelet server lets it in by its
 * kubelet-client certificate and a real SubjectAccessReview.
 * The pod prints a numbered line every 0.3 s and exits: `-f` started while it prints sees the lines
 * written after it started, each once, and ends by itself once the container has stopped. A pod
 * whose container restarts: `-f` follows the running instance to its end (the kubelet's follow ends
 * with the instance it follows, as Go's does), `--previous` shows the instance before it. Every
 * instance after the first waits, once it has printed, until the test lets it exit (a file on its
 * emptyDir, made by `kubectl exec`): the instance `--previous` is asked about is the one before the
 * one running, however slow the machine.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const LINES = 30;
// One line each 0.3 s: the container's pace, so lines keep coming while kubectl follows them.
const TICKER = `i=1; while [ $i -le ${LINES} ]; do echo "line $i"; i=$((i+1)); sleep 0.3; done`;
/** Lines each instance of the restarting container prints, 0.5 s apart: the first few, so that it restarts soon; the later ones more. */
const runLength = (n: number) => (n === 1 ? 4 : 20);
/** The file that lets a restarted instance of the restarting container exit, on its emptyDir. */
const LET_EXIT = '/data/exit';
const runLines = (n: number) => Array.from({ length: runLength(n) }, (_, i) => `run ${n} line ${i + 1}\n`).join('');
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join('');

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `kubectl logs through the real API server, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns: string;

  const kubectl = (...args: string[]) => runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', ns, ...args]);

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-lg-${rt.name}`, endpoint: rt.endpoint, resolvable: true });
    ns = n.ns;
    // Started first: its restarts take Go's 10 s back-off, which runs while the other tests do.
    // An emptyDir outlives the container's restarts: each instance numbers itself there. The first
    // exits after its lines; a later one waits for LET_EXIT (its own poll of the file, in the container).
    const run = 'n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; '
      // The 0.5 s between lines spreads each run's output over time for --follow to stream; the 0.2 s loop polls the file that lets the pod exit.
      + `last=${runLength(2)}; [ $n -eq 1 ] && last=${runLength(1)}; i=1; while [ $i -le $last ]; do echo "run $n line $i"; i=$((i+1)); sleep 0.5; done; `
      + `if [ $n -gt 1 ]; then until [ -e ${LET_EXIT} ]; do sleep 0.2; done; fi; exit 1`; // a shell has no file event: polls for the file the test writes to let the pod exit
    await n.createPod('restarter', {
      restartPolicy: 'Always', volumes: [{ name: 'data', emptyDir: {} }],
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', run], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    });
    await n.whileUp('restarter Running', async () => (await n.pod('restarter'))?.status?.phase === 'Running', 60_000);
    await n.untilProxied('restarter');
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('follows with -f: the lines written after it started, each once, to its end when the container stops', async () => {
    await n.createPod('ticker', { restartPolicy: 'Never', containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', TICKER] }] });
    // Without -f: what was printed so far, and no more.
    const sofar = await n.whileUp('kubectl logs to show the first lines', async () => {
      const r = await kubectl('logs', 'ticker');
      return r.code === 0 && r.stdout.includes('line 3\n') ? r.stdout : undefined;
    }, 60_000);
    const printed = sofar.split('\n').filter(Boolean).length;
    expect(sofar).toBe(numbered(1, printed));
    expect(printed).toBeLessThan(LINES - 5);

    const startedAt = Date.now();
    const follow = spawn(n.lab.kubectl, [`--kubeconfig=${n.lab.adminKubeconfig}`, '-n', ns, 'logs', '-f', 'ticker'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    await n.whileUp('the pod to have succeeded', async () => (await n.pod('ticker'))?.status?.phase === 'Succeeded', 15_000);
  }, 120_000);

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

  it('follows a restarted container: -f streams the running instance to its end, --previous the one before', async () => {
    // The first restart comes after Go's 10 s back-off. Instance k runs once the container has
    // restarted k-1 times, and runs until the test lets it exit.
    const k = await n.whileUp('a restarted instance running and printing', async () => {
      const status = (await n.pod('restarter'))?.status?.containerStatuses?.[0];
      if (!status?.state?.running || !status.restartCount) return undefined;
      const r = await kubectl('logs', 'restarter');
      return r.code === 0 && r.stdout.startsWith(`run ${status.restartCount + 1} line 1\n`) ? status.restartCount + 1 : undefined;
    }, 120_000);
    const follow = spawn(n.lab.kubectl, [`--kubeconfig=${n.lab.adminKubeconfig}`, '-n', ns, 'logs', '-f', 'restarter'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    follow.stdout.on('data', (d: Buffer) => (out += d.toString()));
    follow.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = new Promise<number | null>((r) => follow.once('exit', r));
    try {
      expect(await kubectl('logs', '--previous', 'restarter')).toEqual({ code: 0, stdout: runLines(k - 1), stderr: '' });
      // Once the follow streams the running instance (its first line came), that instance may exit.
      await n.whileUp('kubectl logs -f streaming the running instance', () => out.startsWith(`run ${k} line 1\n`), 30_000);
      expect(await kubectl('exec', 'restarter', '--', 'touch', LET_EXIT)).toEqual({ code: 0, stdout: '', stderr: '' });
      expect({ code: await code, out, err }).toEqual({ code: 0, out: runLines(k), err: '' });
    } finally {
      if (follow.exitCode === null) follow.kill();
    }
  }, 180_000);
});
