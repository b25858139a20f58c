/**
 * The kubelet server over real TLS sockets on 127.0.0.1: the self-signed serving certificate, x509
 * client certificates checked against clientCAFile, anonymous access, tlsMinVersion. Certificates
 * are made with openssl in a temp dir.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
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

async function makeClient(name: string, ca: string, subject: string, extensions: string[] = []): Promise<void> {
  await run('openssl', ['req', ...EC, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.csr`), '-subj', subject]);
  await writeFile(join(dir, `${name}.ext`), extensions.join('\n') + '\n');
  await run('openssl', ['x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', join(dir, `${ca}.crt`), '-CAkey', join(dir, `${ca}.key`),
    '-CAcreateserial', '-out', join(dir, `${name}.crt`), '-days', '1', '-extfile', join(dir, `${name}.ext`)]);
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
  // An intermediate CA under the trusted one, and a client certificate it signed, presented with it.
  await makeClient('mid-ca', 'client-ca', '/CN=mid-ca', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign']);
  await makeClient('carol-leaf', 'mid-ca', '/CN=carol');
  await writeFile(join(dir, 'carol.crt'), (await readFile(join(dir, 'carol-leaf.crt'), 'utf8')) + (await readFile(join(dir, 'mid-ca.crt'), 'utf8')));
  await run('cp', [join(dir, 'carol-leaf.key'), join(dir, 'carol.key')]);
  // A chain the client got wrong itself: a leaf presented with an intermediate named like its
  // issuer but with another key (OpenSSL checks that signature even with no trusted CA).
  await makeCa('mid-ca-twin', '/CN=mid-ca');
  await makeClient('bob-leaf', 'mid-ca-twin', '/CN=bob');
  await writeFile(join(dir, 'bob.crt'), (await readFile(join(dir, 'bob-leaf.crt'), 'utf8')) + (await readFile(join(dir, 'mid-ca.crt'), 'utf8')));
  await run('cp', [join(dir, 'bob-leaf.key'), join(dir, 'bob.key')]);
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

async function get(server: RunningServer, path: string, client?: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: string; reused: boolean }> {
  const port = Number(server.address.split(':').pop());
  const ca = await readFile(join(dir, 'pki', 'kubelet.crt'));
  const creds = client ? { cert: await readFile(join(dir, `${client}.crt`)), key: await readFile(join(dir, `${client}.key`)) } : {};
  return new Promise((resolve, reject) => {
    // Verify the kubelet's own certificate too: its SANs carry the node IP.
    const req = httpsRequest({ host: '127.0.0.1', port, path, ca, ...creds, ...extra }, (res) => {
      let body = '';
      const reused = (res.socket as TLSSocket).isSessionReused();
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, reused }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The status line of a GET sent only once the server has finished its handshake (its session ticket has come). */
async function getAfterHandshake(server: RunningServer, path: string, client: string): Promise<string> {
  const port = Number(server.address.split(':').pop());
  const creds = { cert: await readFile(join(dir, `${client}.crt`)), key: await readFile(join(dir, `${client}.key`)) };
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: [], rejectUnauthorized: false, ...creds });
    let answer = '';
    // Written a turn later: a write from within the 'session' callback is never sent (Node 20).
    socket.once('session', () => setImmediate(() => socket.write(`GET ${path} HTTP/1.1\r\nHost: node-a\r\nConnection: close\r\n\r\n`)));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code ?? err.message}`));
    socket.on('close', () => resolve(answer.split('\r\n')[0] || 'closed without an answer'));
  });
}

describe('kubelet server over TLS', () => {
  it('answers 401 to a client without credentials when anonymous is off', async () => {
    const s = await start({ anonymous: false });
    expect(await get(s, '/pods')).toMatchObject({ status: 401, body: 'Unauthorized' });
  });

  it('serves an anonymous client when anonymous is on with AlwaysAllow', async () => {
    const s = await start({ anonymous: true });
    const res = await get(s, '/pods');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).kind).toBe('PodList');
  });

  it('bounds request headers to 64 KiB over TLS too', async () => {
    const s = await start({ anonymous: true });
    expect((await get(s, '/pods', undefined, { headers: { 'x-big': 'x'.repeat(60 * 1024) } })).status).toBe(200);
    expect((await get(s, '/pods', undefined, { headers: { 'x-big': 'x'.repeat(70 * 1024) } })).status).toBe(431);
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

  // Node's https client sends its request with the handshake's last flight; curl and Go wait for it
  // to finish, so the server's first read after the handshake finds nothing, and that read is where
  // OpenSSL's leftover signature failure used to reset the connection.
  it.each(['eve', 'forged-self', 'bob'])('answers 401, not a reset, to %s\'s certificate sent by a client that waits for the handshake (#14)', async (client) => {
    const s = await start({ anonymous: true });
    expect(await getAfterHandshake(s, '/pods', client)).toBe('HTTP/1.1 401 Unauthorized');
  });

  it('authenticates a certificate presented with its intermediate CA, also over a resumed TLS session', async () => {
    const s = await start({ anonymous: false });
    const agent = new Agent({ keepAlive: false, maxCachedSessions: 10 });
    const answers: Array<[number, boolean]> = [];
    for (let i = 0; i < 3; i++) {
      const res = await get(s, '/pods', 'carol', { agent });
      answers.push([res.status, res.reused]);
    }
    agent.destroy();
    expect(answers.map(([status]) => status)).toEqual([200, 200, 200]);
    expect(answers.map(([, reused]) => reused)).toEqual([false, true, true]);
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
