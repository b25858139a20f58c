/**
 * The kubelet server over real TLS sockets on 127.0.0.1: the self-signed serving certificate, x509
 * client certificates checked against clientCAFile, anonymous access, tlsMinVersion. Certificates
 * are made with openssl in a temp dir.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubeletServer, startReadOnlyServer, type KubeletServerAuth, type RunningServer } from '../../../../src/adapters/http/kubelet-server/server.js';
import type { NodeRequestAttributes } from '../../../../src/ports/kubelet-view.js';
import { FakeKubeletView, testPod } from './fake-view.js';

const run = promisify(execFile);
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
let dir: string;
const servers: RunningServer[] = [];

async function makeCa(name: string, subject = `/CN=${name}`): Promise<void> {
  await run('openssl', ['req', '-x509', ...EC, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`), '-days', '1', '-subj', subject]);
}

async function makeClient(name: string, ca: string, subject: string): Promise<void> {
  await run('openssl', ['req', ...EC, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.csr`), '-subj', subject]);
  await run('openssl', ['x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', join(dir, `${ca}.crt`), '-CAkey', join(dir, `${ca}.key`),
    '-CAcreateserial', '-out', join(dir, `${name}.crt`), '-days', '1']);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'klt-tls-'));
  await makeCa('client-ca');
  await makeCa('other-ca');
  await makeClient('alice', 'client-ca', '/O=system:masters/O=devs/CN=alice');
  await makeClient('mallory', 'other-ca', '/CN=mallory');
  // A forger's CA named like the trusted one: the issuer name matches, the signature does not.
  await makeCa('forged-ca', '/CN=client-ca');
  await makeClient('eve', 'forged-ca', '/O=system:masters/CN=eve');
  // …and that CA's own certificate presented as the client certificate.
  await run('cp', [join(dir, 'forged-ca.crt'), join(dir, 'forged-self.crt')]);
  await run('cp', [join(dir, 'forged-ca.key'), join(dir, 'forged-self.key')]);
}, 60_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function start(auth: Partial<KubeletServerAuth>, tls: { minVersion?: string; cipherSuites?: string[] } = {}) {
  const view = new FakeKubeletView();
  view.podsList = [testPod('web')];
  const server = await startKubeletServer({
    address: '127.0.0.1', port: 0,
    tls: { certDir: join(dir, 'pki'), hostname: 'node-a', nodeIPs: ['127.0.0.1'], ...tls },
    auth: { anonymous: false, authorizationMode: 'AlwaysAllow', clientCAFile: join(dir, 'client-ca.crt'), ...auth },
    view, logger: pino({ level: 'silent' }),
  });
  servers.push(server);
  return server;
}

async function get(server: RunningServer, path: string, client?: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: string }> {
  const port = Number(server.address.split(':').pop());
  const ca = await readFile(join(dir, 'pki', 'kubelet.crt'));
  const creds = client ? { cert: await readFile(join(dir, `${client}.crt`)), key: await readFile(join(dir, `${client}.key`)) } : {};
  return new Promise((resolve, reject) => {
    // Verify the kubelet's own certificate too: its SANs carry the node IP.
    const req = httpsRequest({ host: '127.0.0.1', port, path, ca, ...creds, ...extra }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('kubelet server over TLS', () => {
  it('answers 401 to a client without credentials when anonymous is off', async () => {
    const s = await start({ anonymous: false });
    expect(await get(s, '/pods')).toEqual({ status: 401, body: 'Unauthorized' });
  });

  it('serves an anonymous client when anonymous is on with AlwaysAllow', async () => {
    const s = await start({ anonymous: true });
    const res = await get(s, '/pods');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).kind).toBe('PodList');
  });

  it('authenticates a client certificate signed by clientCAFile: CN is the user, O the groups', async () => {
    const seen: NodeRequestAttributes[] = [];
    const s = await start({ anonymous: false, authorizationMode: 'Webhook', accessReviewer: { review: async (a) => (seen.push(a), { allowed: true }) } });
    expect((await get(s, '/metrics', 'alice')).status).toBe(200);
    expect(seen[0]!.user).toEqual({ name: 'alice', groups: ['system:masters', 'devs', 'system:authenticated'] });
    expect(seen[0]!.subresource).toBe('metrics');
  });

  it('answers 401 to a certificate from another CA, even with anonymous on', async () => {
    const s = await start({ anonymous: true });
    expect((await get(s, '/pods', 'mallory')).status).toBe(401);
  });

  it.each([false, true])('answers 401 to a certificate from a foreign CA with the trusted CA\'s subject (anonymous %s) (#14)', async (anonymous) => {
    const s = await start({ anonymous });
    for (const client of ['eve', 'forged-self']) {
      const res = await get(s, '/pods', client);
      expect([client, res.status, res.body]).toEqual([client, 401, 'Unauthorized']);
    }
  });

  it('honours tlsMinVersion: a TLS 1.2-only client cannot connect to a TLS 1.3 server', async () => {
    const s = await start({ anonymous: true }, { minVersion: 'VersionTLS13' });
    await expect(get(s, '/pods', undefined, { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    expect((await get(s, '/pods')).status).toBe(200);
  });

  it('honours tlsCipherSuites on TLS 1.2', async () => {
    const s = await start({ anonymous: true }, { cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] });
    expect((await get(s, '/pods', undefined, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' })).status).toBe(200);
    await expect(get(s, '/pods', undefined, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).rejects.toThrow();
  });

  it('refuses to start on an unknown cipher suite or Webhook authorization without a reviewer', async () => {
    await expect(start({}, { cipherSuites: ['TLS_MADE_UP'] })).rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG' });
    await expect(start({ authorizationMode: 'Webhook' })).rejects.toMatchObject({ code: 'KLT_ERR_AUTH_CONFIG' });
  });
});

describe('read-only server', () => {
  it('serves /pods over plain HTTP without authentication', async () => {
    const view = new FakeKubeletView();
    view.podsList = [testPod('web')];
    const s = await startReadOnlyServer({ address: '127.0.0.1', port: 0, view });
    servers.push(s);
    const port = Number(s.address.split(':').pop());
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/pods' }, (r) => {
        let body = '';
        r.on('data', (c) => (body += c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      }).on('error', reject).end();
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).items[0].metadata.name).toBe('web');
  });

  it('refuses an oversized header', async () => {
    const s = await startReadOnlyServer({ address: '127.0.0.1', port: 0, view: new FakeKubeletView() });
    servers.push(s);
    const port = Number(s.address.split(':').pop());
    const status = await new Promise<number>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/pods', headers: { 'x-big': 'a'.repeat(100 * 1024) } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      }).on('error', reject).end();
    });
    expect(status).toBe(431);
  });
});
