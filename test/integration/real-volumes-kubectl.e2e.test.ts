/**
 * Volumes and the API server's proxy on the real control plane (kube-lab.ts), on the embedded runtime
 * and on containerd (KUBELET_IT_CRI). The ServiceAccount admission plugin adds its kube-api-access
 * volume to the pod, and the kubelet fills it and a projected serviceAccountToken through
 * TokenRequest: the real API server's TokenReview accepts the token the container sees, bound to the
 * pod. A ConfigMap and a Secret updated in the API show up in the mounted files. Then Debian's
 * kubectl (KUBECTL names another) reads and follows pods' logs, execs in a pod and forwards a port
 * to it through the API server's pods/log, pods/exec and pods/portforward proxy, which dials the
 * kubelet by the Node's Hostname address: the test makes the node's name resolve to 127.0.0.1 for
 * as long as it runs (an /etc/hosts line).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/daemon.js';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Prints the token's digest and the service-account files once, then each volume file whenever it changes. */
const WATCHER = [
  `echo "TOKEN $(sha256sum /proj/token | cut -d" " -f1)"`,
  `echo "SA $(cat ${SA_DIR}/namespace) $(head -c 27 ${SA_DIR}/ca.crt) $(wc -c < ${SA_DIR}/token)"`,
  'last=""',
  'while :; do',
  '  now="CM $(cat /cm/greeting) SECRET $(cat /sec/password)"',
  '  if [ "$now" != "$last" ]; then echo "$now"; last=$now; fi',
  '  sleep 0.2 & wait $!',
  'done',
].join('\n');

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `volumes and kubectl through the real API server, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns: string;
  let uid = '';
  const kubectl = (args: string[], input?: string) => runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', ns, ...args], input === undefined ? {} : { input });
  /** What the container wrote, from its CRI log files. */
  const output = () => {
    const base = join(n.dir, 'logs', `${ns}_vols_${uid}`, 'main');
    if (!existsSync(base)) return '';
    return readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('').split('\n').map((l) => l.split(' ').slice(3).join(' ')).join('\n');
  };

  beforeAll(async () => {
    // The pod resync sets API content up again: short, so an update shows within the test.
    n = await startLabNode({ name: `kts-vk-${rt.name}`, endpoint: rt.endpoint, resolvable: true, extraConfig: () => ['syncFrequency: 2s'] });
    ns = n.ns;
    await n.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'settings' }, data: { greeting: 'hello' } });
    await n.create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'creds' }, stringData: { password: 'first' } });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('mounts the ServiceAccount admission\'s token volume and a projected token the real TokenReview accepts, bound to the pod', async () => {
    const created = await n.createPod('vols', {
      containers: [{
        name: 'main', image: BUSYBOX, command: ['sh', '-c', WATCHER],
        volumeMounts: [{ name: 'proj', mountPath: '/proj', readOnly: true }, { name: 'cm', mountPath: '/cm' }, { name: 'sec', mountPath: '/sec' }],
      }],
      volumes: [
        { name: 'proj', projected: { sources: [{ serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'token' } }] } },
        { name: 'cm', configMap: { name: 'settings' } },
        { name: 'sec', secret: { secretName: 'creds' } },
      ],
    });
    uid = created.metadata.uid;
    // The admission plugin's doing, not the test's: the default ServiceAccount and its token volume.
    expect(created.spec.serviceAccountName).toBe('default');
    const volumes = created.spec.volumes as { name: string }[];
    expect(volumes.map((v) => v.name)).toEqual(['proj', 'cm', 'sec', expect.stringMatching(/^kube-api-access-[a-z0-9]{5}$/)]);

    const out = await n.whileUp('the container to print its volumes', () => (output().includes('CM hello SECRET first') ? output() : undefined), 60_000);
    const tokenFile = join(n.dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~projected', 'proj', 'token');
    const token = readFileSync(tokenFile, 'utf8');
    expect(out).toContain(`TOKEN ${createHash('sha256').update(token).digest('hex')}`);
    expect(out).toMatch(new RegExp(`^SA ${ns} -----BEGIN CERTIFICATE----- \\d{3,}$`, 'm'));

    type Review = { status: { authenticated?: boolean; audiences?: string[]; error?: string; user?: { username?: string; extra?: Record<string, string[]> } } };
    const review = async (audiences: string[]) => (await n.create<Review>('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token, audiences } })).status;
    const accepted = await review(['vault']);
    expect(accepted).toMatchObject({ authenticated: true, audiences: ['vault'], user: { username: `system:serviceaccount:${ns}:default` } });
    expect(accepted.user?.extra).toMatchObject({ 'authentication.kubernetes.io/pod-name': ['vols'], 'authentication.kubernetes.io/pod-uid': [uid] });
    // Bound to its audience: the API server's own refuses it.
    expect((await review(['https://kubernetes.default.svc'])).authenticated).toBeFalsy();
  }, 90_000);

  it('shows a ConfigMap and a Secret updated in the API in the mounted files', async () => {
    const put = async (path: string, change: (o: Record<string, unknown>) => Record<string, unknown>) => {
      const current = await n.get<Record<string, unknown>>(path);
      const res = await labApi(n.lab, 'PUT', path, change(current));
      expect(res.status).toBe(200);
    };
    await put(`/api/v1/namespaces/${ns}/configmaps/settings`, (o) => ({ ...o, data: { greeting: 'hello again' } }));
    await put(`/api/v1/namespaces/${ns}/secrets/creds`, (o) => ({ ...o, data: { password: Buffer.from('second').toString('base64') } }));
    await n.whileUp('the container to see both updates', () => output().includes('CM hello again SECRET second'), 60_000);
  }, 90_000);

  it('kubectl logs reads the container\'s log through the API server\'s proxy', async () => {
    await n.untilProxied('vols');
    const all = await kubectl(['logs', 'vols']);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout).toMatch(/^TOKEN [0-9a-f]{64}\nSA /);
    expect(all.stdout).toContain('CM hello again SECRET second\n');
    expect(await kubectl(['logs', 'vols', '--tail=1'])).toEqual({ code: 0, stdout: 'CM hello again SECRET second\n', stderr: '' });
    const unknown = await kubectl(['logs', 'vols', '-c', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('container nope is not valid for pod vols');
  }, 60_000);

  it('kubectl exec runs a command in the container through the API server\'s proxy: its output, its stdin, its exit code', async () => {
    expect(await kubectl(['exec', 'vols', '--', 'cat', '/cm/greeting'])).toEqual({ code: 0, stdout: 'hello again', stderr: '' });
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
