/**
 * TLS bootstrap end to end (issue 17): the real binary with only a bootstrap kubeconfig (a bootstrap
 * token) against the test API server over TLS, whose controller approves and signs node CSRs. The
 * node asks for its client certificate in run.bootstrap, writes the pair and --kubeconfig, joins
 * as system:node:<name>, gets Ready and runs a pod; restarted, it reuses the certificate without a
 * new CSR. A denied CSR stops start-up in run.bootstrap naming it; a CSR nobody approves keeps the
 * phase waiting, with the reason in the log, until the test approves it.
 * On the embedded runtime, and on containerd (KUBELET_IT_CRI; in CI it must run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { freePort, removePods, until } from '../support/daemon.js';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const TOKEN = 'abcdef.0123456789abcdef';
const CSR_PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const SLEEPER = ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"];

interface Kubelet { child: ChildProcess; stderr: () => string; exited: Promise<number | null> }

function startKubelet(dir: string, api: TestApiServer, endpoint: string, node: string, config: string[] = []): Kubelet {
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${endpoint}`, 'enableServer: false', 'healthzPort: 0', ...config, '',
  ].join('\n'));
  const child = spawn(process.execPath, [
    BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`,
    `--bootstrap-kubeconfig=${api.kubeconfigPath(dir, { token: TOKEN, fileName: 'bootstrap-kubeconfig' })}`,
    `--kubeconfig=${join(dir, 'kubelet.kubeconfig')}`,
    ...(endpoint === 'embedded' ? ['--embedded-runtime-allow-cluster'] : []), '--debug-address=', `--hostname-override=${node}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}

async function stop(k: Kubelet): Promise<void> {
  if (k.child.exitCode === null) k.child.kill('SIGTERM');
  await k.exited;
}

/** A temp dir and a TLS test API server that takes the bootstrap token. */
async function setUp(prefix: string): Promise<{ dir: string; api: TestApiServer }> {
  return { dir: mkdtempSync(join(tmpdir(), prefix)), api: await startTestApiServer({ tls: true, bootstrapTokens: [TOKEN] }) };
}

async function tearDown(kubelet: Kubelet | null, api: TestApiServer, endpoint: string, dir: string): Promise<void> {
  if (kubelet) await stop(kubelet);
  await api.close();
  await removePods({ endpoint, rootDir: join(dir, 'root') });
  rmSync(dir, { recursive: true, force: true });
}

type Conditions = { status?: { conditions?: { type: string; status: string }[]; phase?: string } };
const isReady = (api: TestApiServer, node: string) =>
  (api.store.get('nodes', undefined, node) as Conditions | undefined)?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const csrPosts = (api: TestApiServer) => api.requests.filter((r) => r.method === 'POST' && r.path === CSR_PATH);

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `TLS bootstrap on the ${rt.name} runtime`, () => {
  const node = `node-boot-${rt.name}`;
  let dir: string;
  let api: TestApiServer;
  let kubelet: Kubelet | null = null;

  beforeAll(async () => {
    ({ dir, api } = await setUp('kts-bootstrap-'));
  });
  afterAll(() => tearDown(kubelet, api, rt.endpoint, dir), 60_000);

  it('joins with only a bootstrap kubeconfig: a CSR, the pair and --kubeconfig written, Ready as system:node:<name>, a pod running', async () => {
    kubelet = startKubelet(dir, api, rt.endpoint, node);
    const k = kubelet;
    await until('the node Ready', () => isReady(api, node), 60_000, k.stderr);

    const csrs = api.store.list('certificatesigningrequests').items as { metadata: { name: string }; spec: { username: string; groups: string[]; signerName: string; usages: string[] } }[];
    expect(csrs).toHaveLength(1);
    expect(csrs[0]!.metadata.name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(csrs[0]!.spec).toMatchObject({ username: 'system:bootstrap:abcdef', signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] });
    expect(csrs[0]!.spec.groups).toContain('system:bootstrappers');

    const current = join(dir, 'pki', 'kubelet-client-current.pem');
    expect(readlinkSync(current)).toMatch(/^kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    const cert = new X509Certificate(readFileSync(current));
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:' + node);
    expect(existsSync(join(dir, 'pki', 'kubelet-client.key.tmp'))).toBe(false);
    const kubeconfig = JSON.parse(readFileSync(join(dir, 'kubelet.kubeconfig'), 'utf8')) as { users: { user: Record<string, string> }[] };
    expect(kubeconfig.users[0]!.user).toEqual({ 'client-certificate': current, 'client-key': current });

    // After the bootstrap, the node speaks as itself: the Node and its Lease were written with the new certificate.
    const nodeWrites = api.requests.filter((r) => r.path.startsWith('/api/v1/nodes') && r.method !== 'GET');
    expect(nodeWrites.length).toBeGreaterThan(0);
    expect(new Set(nodeWrites.map((r) => r.user?.username))).toEqual(new Set([`system:node:${node}`]));

    api.store.create('pods', { metadata: { name: 'after-bootstrap', namespace: 'default' }, spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: SLEEPER }] } });
    await until('the pod Running', () => (api.store.get('pods', 'default', 'after-bootstrap') as Conditions | undefined)?.status?.phase === 'Running', 60_000, k.stderr);
  }, 150_000);

  it('restarted, reuses the current certificate: no new CSR', async () => {
    await stop(kubelet!);
    const posts = csrPosts(api).length;
    const target = readlinkSync(join(dir, 'pki', 'kubelet-client-current.pem'));
    api.requests.length = 0;
    kubelet = startKubelet(dir, api, rt.endpoint, node);
    const k = kubelet;
    await until('a node status write after the restart', () => api.requests.some((r) => r.path.startsWith(`/api/v1/nodes/${node}`) && r.method === 'PATCH'), 60_000, k.stderr);
    expect(posts).toBe(1);
    expect(csrPosts(api)).toHaveLength(0);
    expect(readlinkSync(join(dir, 'pki', 'kubelet-client-current.pem'))).toBe(target);
    expect(k.stderr()).not.toContain('Using the bootstrap kubeconfig');
  }, 120_000);
});

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `client certificate rotation on the ${rt.name} runtime`, () => {
  const node = `node-rotate-${rt.name}`;
  let dir: string;
  let api: TestApiServer;
  let kubelet: Kubelet | null = null;
  beforeAll(async () => {
    ({ dir, api } = await setUp('kts-rotate-'));
    // 10 s certificates: renewed 7–9 s after they were issued.
    api.csr!.policy.validitySeconds = 10;
  });
  afterAll(() => tearDown(kubelet, api, rt.endpoint, dir), 60_000);

  it('rotates its client certificate twice while a pod keeps running, asking as itself, with no failed heartbeat', async () => {
    kubelet = startKubelet(dir, api, rt.endpoint, node, ['rotateCertificates: true']);
    const k = kubelet;
    await until('the node Ready', () => isReady(api, node), 60_000, k.stderr);
    api.store.create('pods', { metadata: { name: 'through-rotations', namespace: 'default' }, spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: SLEEPER }] } });
    await until('the pod Running', () => (api.store.get('pods', 'default', 'through-rotations') as Conditions | undefined)?.status?.phase === 'Running', 60_000, k.stderr);
    const started = JSON.stringify((api.store.get('pods', 'default', 'through-rotations') as { status?: { containerStatuses?: unknown[] } }).status?.containerStatuses?.[0]);

    await until('two rotations after the bootstrap', () => api.csr!.signed.length >= 3, 40_000, k.stderr);
    const secondRotationAtMs = Date.now();
    const csrs = api.csr!.signed.slice(0, 3).map((name) => api.store.get('certificatesigningrequests', undefined, name) as { metadata: { name: string }; spec: { username: string } });
    expect(csrs.map((c) => c.spec.username)).toEqual(['system:bootstrap:abcdef', `system:node:${node}`, `system:node:${node}`]);
    expect(csrs[0]!.metadata.name).toMatch(/^node-csr-/);
    expect(csrs.slice(1).every((c) => c.metadata.name.startsWith('csr-'))).toBe(true);
    // The node keeps renewing its Lease and status with each new certificate in turn.
    const leaseRenewalsBefore = api.requests.filter((r) => r.path.includes('/leases/') && r.method === 'PUT').length;
    await until('a Lease renewal after the second rotation', () => api.requests.filter((r) => r.path.includes('/leases/') && r.method === 'PUT').length > leaseRenewalsBefore, 20_000, k.stderr);
    const heartbeats = api.requests.filter((r) => (r.path.includes('/leases/') && r.method === 'PUT') || (r.path === `/api/v1/nodes/${node}/status` && r.method === 'PATCH'));
    expect(heartbeats.length).toBeGreaterThan(2);
    // The old connections were closed: once the second rotation is in, no request comes with the first two certificates.
    const fingerprintOf = (name: string) => {
      const csr = api.store.get('certificatesigningrequests', undefined, name) as { status: { certificate: string } };
      return new X509Certificate(Buffer.from(csr.status.certificate, 'base64')).fingerprint256;
    };
    const replaced = new Set(api.csr!.signed.slice(0, 2).map(fingerprintOf));
    const later = api.requests.filter((r) => r.atMs > secondRotationAtMs + 500 && r.clientCertificateFingerprint !== undefined);
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((r) => replaced.has(r.clientCertificateFingerprint!))).toEqual([]);
    expect(heartbeats.filter((r) => r.status >= 400)).toEqual([]);
    expect(isReady(api, node)).toBe(true);
    expect(k.stderr()).not.toMatch(/Could not rotate the client certificate|heartbeat failures/);
    const pod = api.store.get('pods', 'default', 'through-rotations') as { status?: { phase?: string; containerStatuses?: { restartCount?: number }[] } };
    expect(pod.status?.phase).toBe('Running');
    expect(pod.status?.containerStatuses?.[0]?.restartCount ?? 0).toBe(0);
    expect(started).toContain('"running"');
    const current = new X509Certificate(readFileSync(join(dir, 'pki', 'kubelet-client-current.pem')));
    expect(Date.parse(current.validTo) - Date.now()).toBeGreaterThan(0);
  }, 150_000);
});

describe('TLS bootstrap refused or delayed', () => {
  let api: TestApiServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    api = await startTestApiServer({ tls: true, bootstrapTokens: [TOKEN] });
  });
  afterAll(async () => {
    await api.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const freshDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'kts-bootstrap-'));
    dirs.push(d);
    return d;
  };

  it('a denied CSR stops start-up in run.bootstrap, naming the CSR and the reason', async () => {
    api.csr!.policy.approval = 'deny';
    const k = startKubelet(freshDir(), api, 'embedded', 'node-denied');
    const code = await k.exited;
    expect(code).not.toBe(0);
    const name = (api.store.list('certificatesigningrequests').items.at(-1) as { metadata: { name: string } }).metadata.name;
    expect(k.stderr()).toContain('run.bootstrap');
    expect(k.stderr()).toContain(`certificate signing request ${name} is denied, reason: TestDenied`);
  }, 60_000);

  it('a CSR nobody approves keeps run.bootstrap waiting with its reason, until it is approved', async () => {
    api.csr!.policy.approval = 'none';
    const k = startKubelet(freshDir(), api, 'embedded', 'node-delayed');
    try {
      await until('the waiting reason in the log', () => /"phase":"run.bootstrap","reason":"certificate signing request node-csr-[\w-]+ is pending approval"/.test(k.stderr()), 30_000, k.stderr);
      expect(isReady(api, 'node-delayed')).toBeFalsy();
      const name = /certificate signing request (node-csr-[\w-]+) is pending approval/.exec(k.stderr())![1]!;
      api.csr!.decide(name, 'approve');
      await until('the node Ready after approval', () => isReady(api, 'node-delayed'), 60_000, k.stderr);
    } finally {
      await stop(k);
    }
  }, 90_000);
});

/** A kubelet with serverTLSBootstrap on the embedded runtime, its server on 127.0.0.1:port, as the node already joined: call to start it (again). */
async function servingKubelet(dir: string, api: TestApiServer, node: string, port: number): Promise<() => Kubelet> {
  const client = await api.issueClientCertificate(`system:node:${node}`, ['system:nodes']);
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', `podLogsDir: ${join(dir, 'logs')}`,
    'containerRuntimeEndpoint: embedded', 'healthzPort: 0', 'address: 127.0.0.1', `port: ${port}`, 'serverTLSBootstrap: true', '',
  ].join('\n'));
  const kubeconfig = api.kubeconfigPath(dir, { clientCertificate: client });
  return () => {
    const child = spawn(process.execPath, [
      BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`,
      `--kubeconfig=${kubeconfig}`, '--embedded-runtime-allow-cluster', '--debug-address=', `--hostname-override=${node}`,
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
    return { child, stderr: () => text, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
  };
}

describe('serverTLSBootstrap: the serving certificate asked for and swapped in place', () => {
  const node = 'node-serving';
  let dir: string;
  let api: TestApiServer;
  let kubelet: Kubelet | null = null;
  beforeAll(async () => {
    ({ dir, api } = await setUp('kts-serving-'));
    // The approver leaves the serving CSR to the test, so the swap happens while a connection is open.
    api.csr!.policy.approval = 'none';
  });
  afterAll(() => tearDown(kubelet, api, 'embedded', dir), 60_000);

  const peer = (port: number) => new Promise<TLSSocket>((resolveSocket, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolveSocket(socket));
    socket.once('error', reject);
  });
  const issuerCn = (s: TLSSocket) => String(s.getPeerCertificate().issuer?.CN ?? '');

  it('serves the self-signed pair until the CSR is issued, then the issued certificate to new connections while an open one keeps working', async () => {
    const port = await freePort();
    const spawnKubelet = await servingKubelet(dir, api, node, port);
    kubelet = spawnKubelet();
    const stderr = () => kubelet!.stderr();

    const before = await until('the kubelet server answering TLS', () => peer(port).catch(() => null), 60_000, stderr);
    expect(issuerCn(before)).toMatch(new RegExp(`^${node}-ca@\\d+$`));
    const oldFingerprint = before.getPeerCertificate().fingerprint256;

    type Csr = { metadata: { name: string }; spec: { signerName: string; username: string; usages: string[] } };
    const csr = await until('the serving CSR', () => (api.store.list('certificatesigningrequests').items as Csr[]).find((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving'), 30_000, stderr);
    expect(csr.spec.username).toBe(`system:node:${node}`);
    expect(csr.spec.usages).toEqual(['digital signature', 'server auth']);
    api.csr!.decide(csr.metadata.name, 'approve');

    const after = await until('a new connection with the issued certificate', async () => {
      const s = await peer(port).catch(() => null);
      if (s && issuerCn(s) === 'kubelet-ts-test-ca') return s;
      s?.destroy();
      return null;
    }, 30_000, stderr);
    expect(after.getPeerCertificate().subjectaltname).toContain(`DNS:${node}`);
    expect(after.getPeerCertificate().subject?.CN).toBe(`system:node:${node}`);
    after.destroy();

    // The connection opened before the swap still has its certificate and still carries requests.
    expect(before.getPeerCertificate().fingerprint256).toBe(oldFingerprint);
    const answer = await new Promise<string>((resolveAnswer) => {
      let text = '';
      before.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('\r\n\r\n')) resolveAnswer(text);
      });
      before.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 \d{3} /);
    before.destroy();
    expect(readlinkSync(join(dir, 'pki', 'kubelet-server-current.pem'))).toMatch(/^kubelet-server-[\d-]+\.pem$/);

    // Restarted, the kubelet serves the kept certificate from the start and asks for no other.
    await stop(kubelet);
    kubelet = spawnKubelet();
    const again = await until('the kubelet server answering TLS after the restart', () => peer(port).catch(() => null), 60_000, stderr);
    expect(issuerCn(again)).toBe('kubelet-ts-test-ca');
    again.destroy();
    expect((api.store.list('certificatesigningrequests').items as Csr[]).filter((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving')).toHaveLength(1);
  }, 120_000);
});

describe('serverTLSBootstrap against a signer that issues expired certificates', () => {
  const node = 'node-expired-serving';
  let dir: string;
  let api: TestApiServer;
  let kubelet: Kubelet | null = null;
  beforeAll(async () => {
    ({ dir, api } = await setUp('kts-expired-serving-'));
    // Approved and signed at once, but expired an hour before they are issued.
    api.csr!.policy.validitySeconds = -3600;
  });
  afterAll(() => tearDown(kubelet, api, 'embedded', dir), 60_000);

  it('backs off instead of asking again at once: a few CSRs in 10 s, each failure said in Go\'s words', async () => {
    kubelet = (await servingKubelet(dir, api, node, await freePort()))();
    const servingCsrs = () => (api.store.list('certificatesigningrequests').items as { spec: { signerName: string } }[])
      .filter((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving').length;
    await until('the first serving CSR', () => servingCsrs() > 0, 60_000, kubelet.stderr);
    // The window the back-off is judged over: CSRs are counted after 10 s of it.
    await new Promise((r) => setTimeout(r, 10_000));
    // Back-off from the first failure: 2 s, 4 s, 8 s (a CSR at 0, 2, 6 and perhaps 14 s).
    expect(servingCsrs()).toBeLessThanOrEqual(4);
    expect(kubelet.stderr()).toContain('the issued serving certificate cannot be used: x509: certificate has expired or is not yet valid: current time');
    expect(existsSync(join(dir, 'pki', 'kubelet-server-current.pem'))).toBe(false);
  }, 90_000);
});
