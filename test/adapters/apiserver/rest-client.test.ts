import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readKubeconfig } from '../../../src/adapters/apiserver/kubeconfig-file.js';
import { HttpStatusError, RestClient } from '../../../src/adapters/apiserver/rest-client.js';

/** A plain HTTP server on loopback that answers every request with what it was sent. */
let server: Server;
let base: string;
const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/prefix/missing')) {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"kind":"Status","reason":"NotFound","message":"gone"}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ echoed: body === '' ? null : JSON.parse(body) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

/** A kubeconfig file for `base` with this user body (the exec path reads the file itself; client-node wants http:// marked insecure). */
const config = (user: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'kts-rest-')), 'kubeconfig');
  writeFileSync(path, `
current-context: c
contexts: [{ name: c, context: { cluster: c, user: u } }]
clusters: [{ name: c, cluster: { server: "${base}/prefix/", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: ${user} }]
`);
  return readKubeconfig(path);
};

describe('RestClient', () => {
  it('sends JSON with the query, its user agent and bearer token, under the server\'s path', async () => {
    const rest = new RestClient(config('{ token: abc }'), { now: () => 0 }, 'kubelet-ts/test');
    const answer = await rest.request('PATCH', '/api/v1/nodes/n%2F1/status', { body: { a: 1 }, contentType: 'application/strategic-merge-patch+json', query: { dryRun: undefined, gracePeriodSeconds: 3 } });
    expect(answer).toEqual({ echoed: { a: 1 } });
    const req = seen.at(-1)!;
    expect([req.method, req.url]).toEqual(['PATCH', '/prefix/api/v1/nodes/n%2F1/status?gracePeriodSeconds=3']);
    expect(req.headers).toMatchObject({ authorization: 'Bearer abc', 'user-agent': 'kubelet-ts/test', 'content-type': 'application/strategic-merge-patch+json', accept: 'application/json' });
    rest.close();
  });

  it('rejects a non-2xx answer with its status code and body', async () => {
    const rest = new RestClient(config('{ username: me, password: pw }'), { now: () => 0 }, 'ua');
    const err = await rest.request('GET', '/missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ code: 404, body: '{"kind":"Status","reason":"NotFound","message":"gone"}' });
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
    rest.close();
  });

  it('gets an exec plugin\'s token through client-node', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-plugin' } });
    const exec = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `echo '${credential}'`], interactiveMode: 'Never' });
    const rest = new RestClient(config(`{ exec: ${exec} }`), { now: () => 0 }, 'ua');
    await rest.request('GET', '/x');
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer from-plugin');
    rest.close();
  });

  it.each([
    ['fails, its stderr holding a token', `echo 'fetched s3cr3t-T0KEN' >&2; exit 1`, 21],
    ['answers with something that is not JSON', `echo 's3cr3t-T0KEN'`, undefined],
  ])('rejects when the exec plugin %s, without its output (#60)', async (_what, script, length) => {
    const exec = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', script], interactiveMode: 'Never' });
    const rest = new RestClient(config(`{ exec: ${exec} }`), { now: () => 0 }, 'ua');
    const err = (await rest.request('GET', '/x').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^the kubeconfig user's exec plugin or auth-provider gave no credentials; its message \((\d+) characters\) is not shown/);
    if (length !== undefined) expect(err.message).toContain(`(${length} characters)`);
    expect(`${err.message} ${String(err.cause)}`).not.toContain('s3cr3t');
    rest.close();
  });

  it('reads a token file again once its token is a minute old, as client-go does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kts-token-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    let now = 0;
    const rest = new RestClient(config(`{ tokenFile: ${file} }`), { now: () => now }, 'ua');
    const tokenSent = async () => {
      await rest.request('GET', '/x');
      return seen.at(-1)!.headers.authorization;
    };
    expect(await tokenSent()).toBe('Bearer first');
    writeFileSync(file, 'second\n');
    now = 59_999;
    expect(await tokenSent()).toBe('Bearer first');
    now = 60_000;
    expect(await tokenSent()).toBe('Bearer second');
    rest.close();
  });

  it('keeps at most 8 requests in flight on its connections, the rest waiting, and opens watches beside them', async () => {
    let open = 0;
    let mostOpen = 0;
    const held: (() => void)[] = [];
    const slow = createServer((req, res) => {
      // A watch answers at once and stays open; a request is answered once the test lets it.
      if (req.url?.includes('watch=true')) return void res.writeHead(200, { 'Content-Type': 'application/json' }).write('');
      held.push(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
    });
    slow.on('connection', (socket) => {
      mostOpen = Math.max(mostOpen, ++open);
      socket.on('close', () => open--);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const path = join(mkdtempSync(join(tmpdir(), 'kts-rest-')), 'kubeconfig');
    writeFileSync(path, `
current-context: c
contexts: [{ name: c, context: { cluster: c, user: u } }]
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:${(slow.address() as AddressInfo).port}" } }]
users: [{ name: u, user: { token: t } }]
`);
    const rest = new RestClient(readKubeconfig(path), { now: () => 0 }, 'ua');
    let cleanupTimer = () => {};
    try {
      const watches = await Promise.all([rest.stream('/w1', { query: { watch: true } }), rest.stream('/w2', { query: { watch: true } })]);
      const answers = Promise.all(Array.from({ length: 20 }, (_, i) => rest.request('GET', `/r${i}`)));
      await vi.waitFor(() => expect(held).toHaveLength(8));
      expect(open).toBe(10);
      // Each answer frees its connection for a waiting request: no new connection is opened.
      const answering = setInterval(() => held.splice(0).forEach((answer) => answer()), 5);
      cleanupTimer = () => clearInterval(answering);
      await expect(answers).resolves.toHaveLength(20);
      expect(mostOpen).toBe(10);
      for (const w of watches) w.destroy();
    } finally {
      cleanupTimer();
      rest.close();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
