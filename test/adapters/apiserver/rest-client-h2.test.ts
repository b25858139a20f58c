/**
 * The REST client over HTTP/2 against node's own h2 server with a throw-away CA: ALPN chooses h2,
 * requests and watches share one session, a session the server ends is replaced on the next
 * request (the reflector re-lists), a GOAWAY sends new requests to a new session while open watches
 * go on, an unanswered ping closes the connection, an outage fails requests until the server is
 * back, and a server that offers only http/1.1 keeps the client on it.
 */
import { mkdtempSync } from 'node:fs';
import http2, { type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readKubeconfig } from '../../../src/adapters/apiserver/kubeconfig-file.js';
import { KubeApi } from '../../../src/adapters/apiserver/kube-api.js';
import { noRateLimit } from '../../../src/adapters/apiserver/rate-limiter.js';
import { startReflector } from '../../../src/adapters/apiserver/reflector.js';
import { RestClient } from '../../../src/adapters/apiserver/rest-client.js';
import { readWatchEvents } from '../../../src/adapters/apiserver/watch-stream.js';
import { STREAM_RECEIVE_WINDOW } from '../../../src/adapters/h2/limits.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { startTestApiServer } from '../../apiserver/index.js';
import { writeKubeconfig } from '../../apiserver/kubeconfig.js';
import { createTestPki, type TestPki } from '../../apiserver/pki.js';

const H2 = { readIdleMs: 30_000, pingTimeoutMs: 15_000, connectTimeoutMs: 5_000 };

let pki: TestPki;
let server: Http2SecureServer;
let port: number;
const sessions: ServerHttp2Session[] = [];
const seen: { version: string; path: string; authorization: string | undefined }[] = [];
/** How the server answers a watch; by default one event, then the stream stays open. */
let onWatch: (req: Http2ServerRequest, res: Http2ServerResponse) => void;

const service = (rv: string) => ({ metadata: { name: 's', namespace: 'default', resourceVersion: rv } });

beforeAll(async () => {
  pki = await createTestPki();
  server = http2.createSecureServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, allowHTTP1: false }, (req, res) => {
    seen.push({ version: req.httpVersion, path: req.url, authorization: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    if (req.url.includes('watch=true')) return onWatch(req, res);
    if (req.url.startsWith('/api/v1/services')) return void res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [service('1')] }));
    req.on('data', () => {});
    req.on('end', () => res.end(JSON.stringify({ path: req.url })));
  });
  server.on('session', (s: ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.destroy();
  seen.length = 0;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const kubeconfig = (serverUrl: string, caPem: string) =>
  readKubeconfig(writeKubeconfig(mkdtempSync(`${tmpdir()}/kts-h2-`), { server: serverUrl, caPem, token: 'tok' }));

const writeEvent = (res: Http2ServerResponse, type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);

describe('RestClient over HTTP/2', () => {
  it('negotiates h2 and sends requests and watches as streams of one session, with its token', async () => {
    onWatch = (_req, res) => void writeEvent(res, 'ADDED', service('2'));
    const rest = new RestClient(kubeconfig(`https://127.0.0.1:${port}`, pki.caPem), { now: () => 0 }, 'ua', H2);
    try {
      expect(await rest.protocol()).toBe('h2');
      const watch = await rest.stream('/api/v1/services', { query: { watch: true } });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => rest.request('POST', `/r${i}`, { body: { i } })));
      expect(answers[19]).toEqual({ path: '/r19' });
      watch.destroy();
      expect(sessions).toHaveLength(1);
      expect(new Set(seen.map((r) => `${r.version} ${r.authorization}`))).toEqual(new Set(['2.0 Bearer tok']));
    } finally {
      rest.close();
    }
  });

  it('reconnects after the server ends the session mid-watch: the reflector re-lists and the next request succeeds', async () => {
    let watches = 0;
    let firstSession: { destroy(): void } | undefined;
    onWatch = (req, res) => {
      if (++watches === 1) firstSession = req.stream.session;
      writeEvent(res, 'ADDED', service('2'));
    };
    const api = new KubeApi({ loadConfig: () => kubeconfig(`https://127.0.0.1:${port}`, pki.caPem), limiter: noRateLimit, timeoutMs: 5_000, clock: systemClock, userAgent: 'ua' });
    const failures: unknown[] = [];
    let lists = 0;
    const reflector = startReflector({
      list: () => (lists++, api.listServices()),
      watch: (o) => api.watchServices(o),
      clock: systemClock, logger: pino({ level: 'silent' }), what: 'services', logFields: {},
      // The first watch's session goes away under it once its event has arrived, as when the API server restarts.
      onReplaced: () => {}, onChanged: () => firstSession?.destroy(), onFailed: (err) => failures.push(err),
    });
    try {
      await vi.waitFor(() => expect(watches).toBe(2), { timeout: 5_000 });
      expect(lists).toBe(2);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE', retryable: true, message: expect.stringContaining('watch services') });
      await expect(api.getNode('n')).resolves.toEqual({ path: '/api/v1/nodes/n' });
      expect(sessions).toHaveLength(2);
    } finally {
      reflector.stop();
      api.close();
    }
  });

  it('after a GOAWAY, keeps the watch on the old session and sends new requests on a new one', async () => {
    let watchAnswer: Http2ServerResponse | undefined;
    onWatch = (req, res) => {
      watchAnswer = res;
      writeEvent(res, 'ADDED', service('2'));
      // kube-apiserver's --goaway-chance: the session takes no new streams, those open go on. The
      // frame follows the event's on the wire; a request the client sends before reading it is
      // refused unprocessed and retried on a new session, so either way it lands on a new one.
      req.stream.session?.goaway();
    };
    const rest = new RestClient(kubeconfig(`https://127.0.0.1:${port}`, pki.caPem), { now: () => 0 }, 'ua', H2);
    try {
      const watch = await rest.stream('/api/v1/services', { query: { watch: true } });
      const events: string[] = [];
      readWatchEvents(watch, { onEvent: (type) => events.push(type), onEnd: (err) => events.push(`end ${String(err)}`) });
      await vi.waitFor(() => expect(events).toEqual(['ADDED']));
      await expect(rest.request('GET', '/after-goaway')).resolves.toEqual({ path: '/after-goaway' });
      expect(sessions).toHaveLength(2);
      // The watch on the session that went away still delivers.
      writeEvent(watchAnswer!, 'MODIFIED', service('3'));
      await vi.waitFor(() => expect(events).toEqual(['ADDED', 'MODIFIED']));
      watch.destroy();
    } finally {
      rest.close();
    }
  });

  it('gives a watch\'s window back as its reader reads: a paused reader holds the server to the stream\'s window', async () => {
    const total = 2 * STREAM_RECEIVE_WINDOW;
    let watchAnswer: Http2ServerResponse | undefined;
    onWatch = (_req, res) => {
      watchAnswer = res;
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let sent = 0; sent < total; sent += chunk.length) res.write(chunk);
      res.end();
    };
    const rest = new RestClient(kubeconfig(`https://127.0.0.1:${port}`, pki.caPem), { now: () => 0 }, 'ua', H2);
    try {
      // Nobody reads the watch: its buffer fills up to the stream's window, and no further.
      const watch = await rest.stream('/w', { query: { watch: true } });
      await vi.waitFor(() => expect(watch.readableLength).toBe(STREAM_RECEIVE_WINDOW), { timeout: 10_000 });
      // A PING's answer comes after every frame the server sent before it: none beyond the window came.
      await new Promise((resolve, reject) => watchAnswer!.stream.session!.ping((err) => (err ? reject(err) : resolve(undefined))));
      expect(watch.readableLength).toBe(STREAM_RECEIVE_WINDOW);
      let read = 0;
      watch.on('data', (c: Buffer) => { read += c.length; });
      await new Promise((resolve) => watch.on('end', resolve));
      expect(read).toBe(total);
    } finally {
      rest.close();
    }
  });

  it('closes a connection whose ping goes unanswered, ending its watch, and reconnects on the next request', async () => {
    onWatch = (_req, res) => void res.writeHead(200).write('');
    // A proxy in between that stops forwarding the server's frames when told: a connection gone silent.
    let silent = false;
    const proxy = net.createServer((client) => {
      const upstream = net.connect(port, '127.0.0.1');
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => void (silent || client.write(chunk)));
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const rest = new RestClient(kubeconfig(`https://127.0.0.1:${(proxy.address() as AddressInfo).port}`, pki.caPem), { now: () => 0 }, 'ua', { ...H2, readIdleMs: 200, pingTimeoutMs: 300 });
    try {
      const watch = await rest.stream('/w', { query: { watch: true } });
      const ended = new Promise<unknown>((resolve) => watch.on('error', resolve).on('close', () => resolve('closed')));
      // Idle but answered: the pings keep the session. By the third ping the server answers (one
      // every 200 ms idle), the first one's 300 ms timeout has passed, had its answer gone unseen.
      let pings = 0;
      sessions[0]!.on('ping', () => pings++);
      await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
      expect(watch.destroyed).toBe(false);
      silent = true;
      const t0 = Date.now();
      expect(await ended).toMatchObject({ code: 'ETIMEDOUT', message: `the API server https://127.0.0.1:${(proxy.address() as AddressInfo).port} did not answer an HTTP/2 ping within 300ms` });
      expect(Date.now() - t0).toBeLessThan(2_000);
      silent = false;
      await expect(rest.request('GET', '/after')).resolves.toEqual({ path: '/after' });
      expect(sessions).toHaveLength(2);
    } finally {
      rest.close();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('fails requests as a connection error while the API server is down, and connects again once it is back', async () => {
    const down = http2.createSecureServer({ key: pki.serverKeyPem, cert: pki.serverCertPem }, (_req, res) => res.end('{"back":true}'));
    const open: ServerHttp2Session[] = [];
    down.on('session', (session: ServerHttp2Session) => open.push(session));
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const downPort = (down.address() as AddressInfo).port;
    const api = new KubeApi({ loadConfig: () => kubeconfig(`https://127.0.0.1:${downPort}`, pki.caPem), limiter: noRateLimit, timeoutMs: 5_000, clock: systemClock, userAgent: 'ua' });
    try {
      await expect(api.getNode('n')).resolves.toEqual({ back: true });
      const closed = new Promise<void>((r) => down.close(() => r()));
      for (const session of open.splice(0)) session.destroy();
      await closed;
      await expect(api.getNode('n')).rejects.toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE', retryable: true, message: 'get node: ECONNREFUSED' });
      await new Promise<void>((r) => down.listen(downPort, '127.0.0.1', r));
      await expect(api.getNode('n')).resolves.toEqual({ back: true });
    } finally {
      api.close();
      for (const session of open) session.destroy();
      down.close();
    }
  });

  it('keeps to HTTP/1.1 with a server that offers only http/1.1', async () => {
    const h1 = await startTestApiServer({ tls: true, token: 'tok' });
    try {
      const rest = new RestClient(readKubeconfig(h1.kubeconfigPath(mkdtempSync(`${tmpdir()}/kts-h1-`))), { now: () => 0 }, 'ua', H2);
      expect(await rest.protocol()).toBe('http/1.1');
      await expect(rest.request('GET', '/api/v1/namespaces/default')).resolves.toMatchObject({ metadata: { name: 'default' } });
      rest.close();
    } finally {
      await h1.close();
    }
  });
});
