/**
 * The kubelet server's authentication and authorization over real TLS sockets (issue #7), in
 * cluster mode against the test API server: no credentials → 401; a client certificate signed by
 * clientCAFile, allowed and denied per SubjectAccessReview; bearer tokens by TokenReview.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { freePort, httpsGet } from '../support/daemon.js';
import { TextFeed } from '../support/text-feed.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const NODE = 'node-w';
let dir: string;
let api: TestApiServer;
let daemon: ChildProcess;
let port = 0;
const sars: { user: string; subresource: string | undefined; verb: string | undefined }[] = [];

function openssl(...args: string[]) {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A client certificate for `cn` signed by the test CA. */
function clientCert(cn: string): { cert: Buffer; key: Buffer } {
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${cn}.key`, '-out', `${cn}.csr`, '-subj', `/CN=${cn}/O=devs`);
  openssl('x509', '-req', '-in', `${cn}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${cn}.crt`, '-days', '1');
  return { cert: readFileSync(join(dir, `${cn}.crt`)), key: readFileSync(join(dir, `${cn}.key`)) };
}

const get = (path: string, auth: { cert?: Buffer; key?: Buffer; token?: string } = {}) => httpsGet(port, path, auth);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kts-webhook-'));
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=kubelet-ts-test-ca', '-days', '1');
  api = await startTestApiServer();
  api.reviews.tokens.set('good-token', { username: 'token-user', groups: ['devs'] });
  api.reviews.authorize = (spec) => {
    const r = spec.resourceAttributes as { subresource?: string; verb?: string } | undefined;
    sars.push({ user: spec.user ?? '', subresource: r?.subresource, verb: r?.verb });
    return { allowed: spec.user === 'alice' || spec.user === 'token-user' };
  };
  port = await freePort();
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `podLogsDir: ${join(dir, 'logs')}`, 'containerRuntimeEndpoint: embedded', 'healthzPort: 0',
    'address: 127.0.0.1', `port: ${port}`,
    `authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: ${join(dir, 'ca.crt')}}}`,
    'authorization: {mode: Webhook}', '',
  ].join('\n'));
  daemon = spawn(process.execPath, [
    BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--kubeconfig=${api.kubeconfigPath(dir)}`, `--root-dir=${join(dir, 'root')}`,
    `--cert-dir=${join(dir, 'pki')}`, '--embedded-runtime-allow-cluster', '--debug-address=', `--hostname-override=${NODE}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const feed = new TextFeed();
  daemon.stderr!.on('data', (d: Buffer) => feed.push(d.toString()));
  const exited = new Promise((r) => daemon.once('exit', r));
  await feed.waitFor('"phase":"running"', 'the kubelet to start', { ended: exited, timeoutMs: 30_000 });
}, 60_000);

afterAll(async () => {
  const exited = new Promise((r) => (daemon.exitCode !== null ? r(null) : daemon.once('exit', r)));
  daemon.kill('SIGTERM');
  await exited;
  await api.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('the kubelet server with Webhook authentication and authorization', () => {
  it('answers 401 without credentials (anonymous off)', async () => {
    expect((await get('/pods')).status).toBe(401);
  });

  it('lets in a client certificate signed by clientCAFile when the SubjectAccessReview allows it', async () => {
    const r = await get('/pods', clientCert('alice'));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).kind).toBe('PodList');
    expect(sars).toContainEqual({ user: 'alice', subresource: 'pods', verb: 'get' });
  });

  it('answers 403 for a valid certificate the SubjectAccessReview denies', async () => {
    const r = await get('/pods', clientCert('bob'));
    expect(r.status).toBe(403);
    expect(r.body).toContain('bob');
  });

  it('authenticates a bearer token by TokenReview, and refuses an unknown one', async () => {
    expect((await get('/pods', { token: 'good-token' })).status).toBe(200);
    expect(sars.some((s) => s.user === 'token-user')).toBe(true);
    expect((await get('/pods', { token: 'forged' })).status).toBe(401);
  });

  it('maps paths to node subresources as the Go kubelet does', async () => {
    sars.length = 0;
    await get('/metrics', clientCert('carol'));
    await get('/configz', clientCert('carol'));
    expect(sars.map((s) => s.subresource)).toEqual(expect.arrayContaining(['metrics', 'configz']));
  });
});
