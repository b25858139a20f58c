/**
 * kubectl through the real API server's proxy (kube-lab.ts), on the embedded runtime and on
 * containerd (KUBELET_IT_CRI): Debian's kubectl (KUBECTL names another) reads and follows pods' logs,
 * execs in a pod (reading its ConfigMap volume) and forwards a port to it through the API server's
 * pods/log, pods/exec and pods/portforward proxy, which dials the kubelet by the Node's Hostname
 * address: the test makes the node's name resolve to 127.0.0.1 for as long as it runs (an /etc/hosts
 * line). The volumes themselves, tokens and TokenReview included, are volumes.e2e.test.ts's.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/daemon.js';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
/** Prints its ConfigMap's greeting and two lines, then sleeps until SIGTERM. */
const TALKER = `echo "CM $(cat /cm/greeting)"; echo second; echo third; ${SLEEP}`;

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `kubectl through the real API server, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns: string;
  const kubectl = (args: string[], input?: string) => runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', ns, ...args], input === undefined ? {} : { input });

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-vk-${rt.name}`, endpoint: rt.endpoint, resolvable: true });
    ns = n.ns;
    await n.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'settings' }, data: { greeting: 'hello' } });
    await n.createPod('vols', {
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', TALKER], volumeMounts: [{ name: 'cm', mountPath: '/cm' }] }],
      volumes: [{ name: 'cm', configMap: { name: 'settings' } }],
    });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('kubectl logs reads the container\'s log through the API server\'s proxy', async () => {
    await n.whileUp('vols Running', async () => (await n.pod('vols'))?.status?.phase === 'Running', 60_000);
    await n.untilProxied('vols');
    await n.whileUp('vols\' three lines', async () => (await kubectl(['logs', 'vols'])).stdout.endsWith('third\n'), 10_000);
    expect(await kubectl(['logs', 'vols'])).toEqual({ code: 0, stdout: 'CM hello\nsecond\nthird\n', stderr: '' });
    expect(await kubectl(['logs', 'vols', '--tail=1'])).toEqual({ code: 0, stdout: 'third\n', stderr: '' });
    const unknown = await kubectl(['logs', 'vols', '-c', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('container nope is not valid for pod vols');
  }, 60_000);

  it('kubectl exec runs a command in the container through the API server\'s proxy: its output, its stdin, its exit code', async () => {
    expect(await kubectl(['exec', 'vols', '--', 'cat', '/cm/greeting'])).toEqual({ code: 0, stdout: 'hello', stderr: '' });
    expect(await kubectl(['exec', '-i', 'vols', '--', 'sh', '-c', 'tr a-z A-Z'], 'through stdin\n')).toEqual({ code: 0, stdout: 'THROUGH STDIN\n', stderr: '' });
    const failed = await kubectl(['exec', 'vols', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(failed).toMatchObject({ code: 3, stdout: 'out\n' });
    expect(failed.stderr).toMatch(/^err\n/);
  }, 60_000);

  it('kubectl logs -f follows a running container to its end', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `tick ${i + 1}\n`).join('');
    await n.createPod('ticker', { restartPolicy: 'Never', containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'i=1; while [ $i -le 12 ]; do echo "tick $i"; i=$((i+1)); sleep 0.4; done'] }] });
    await n.whileUp('ticker\'s first line through kubectl logs', async () => (await kubectl(['logs', 'ticker'])).stdout.startsWith('tick 1\n'), 60_000);
    const started = Date.now();
    expect(await kubectl(['logs', '-f', 'ticker'])).toEqual({ code: 0, stdout: lines, stderr: '' });
    // It followed: the container was still printing when it started.
    expect(Date.now() - started).toBeGreaterThan(1_000);
  }, 90_000);

  it('kubectl port-forward reaches a container\'s port through the API server\'s proxy', async () => {
    // `busybox httpd`: the image's on containerd, the host's on the embedded runtime, whose pods share the host's network.
    const http = await freePort();
    await n.createPod('web', { containers: [{
      name: 'main', image: BUSYBOX, ports: [{ containerPort: http }],
      command: ['sh', '-c', `d=$(mktemp -d) && echo served > $d/index.html && exec busybox httpd -f -p ${http} -h $d`],
    }] });
    await n.whileUp('web Running', async () => (await n.pod('web'))?.status?.phase === 'Running', 60_000);
    const local = await freePort();
    const child = spawn(n.lab.kubectl, [`--kubeconfig=${n.lab.adminKubeconfig}`, '-n', ns, 'port-forward', 'pod/web', `${local}:${http}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    child.stdout.on('data', (d: Buffer) => (said += d.toString()));
    child.stderr.on('data', (d: Buffer) => (said += d.toString()));
    try {
      await n.whileUp('kubectl port-forward to listen', () => said.includes(`Forwarding from 127.0.0.1:${local}`), 20_000);
      // The server may still be starting: the first exchange is retried.
      const body = await n.whileUp('the page through the forward', async () => {
        const res = await fetch(`http://127.0.0.1:${local}/index.html`).catch(() => undefined);
        return res?.status === 200 ? res.text() : undefined;
      }, 20_000);
      expect(body).toBe('served\n');
      for (let i = 0; i < 5; i += 1) expect(await (await fetch(`http://127.0.0.1:${local}/index.html`)).text()).toBe('served\n');
    } finally {
      child.kill('SIGTERM');
    }
  }, 90_000);
});
