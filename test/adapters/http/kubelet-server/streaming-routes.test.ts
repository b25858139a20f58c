/**
 * /exec, /attach and /portForward over real sockets: a kubelet app listening on 127.0.0.1, a fake
 * runtime streaming server (plain HTTP, answering upgrades) behind it, and a raw TCP client that
 * sends upgrade requests the way kubectl (SPDY) and client-node (WebSocket) do.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildKubeletApp, type KubeletServerAuth } from '../../../../src/adapters/http/kubelet-server/server.js';
import { KubeletError } from '../../../../src/domain/errors.js';
import type { NodeRequestAttributes, SubjectAccessReviewer } from '../../../../src/ports/kubelet-view.js';
import { FakeKubeletView, testPod } from './fake-view.js';
import { serveApp, type ServedApp } from './served-app.js';

interface RuntimeSeen { method: string; url: string; headers: IncomingMessage['headers']; head: string }

/** A runtime streaming server: upgrades `/session/*` and then answers each chunk as `echo:<chunk>`. */
async function fakeRuntime(): Promise<{ server: Server; base: string; seen: RuntimeSeen[]; sockets: Duplex[] }> {
  const seen: RuntimeSeen[] = [];
  const sockets: Duplex[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/refused') {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('session not found');
      return;
    }
    res.writeHead(200);
    res.end('not an upgrade');
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, head: head.toString() });
    sockets.push(socket);
    if (req.url === '/refused') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 17\r\n\r\nsession not found');
      return;
    }
    if (req.url === '/ok') {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${String(req.headers.upgrade)}\r\n`
      + 'X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\nhello from runtime|');
    socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString()}|`));
    socket.on('end', () => socket.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, sockets };
}

let app: ServedApp | undefined;
let runtime: Awaited<ReturnType<typeof fakeRuntime>> | undefined;
const clients: Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of runtime?.sockets ?? []) s.destroy();
  await app?.close();
  if (runtime) await new Promise((r) => runtime!.server.close(r));
  app = undefined;
  runtime = undefined;
});

function view(): FakeKubeletView {
  const v = new FakeKubeletView();
  const pod = testPod('web', 'default', ['app', 'tty']);
  pod.spec.containers[1]!.tty = true;
  v.podsList = [pod];
  v.containers.set('default/web/app', { containerId: 'c-app', uid: 'uid-web' });
  v.containers.set('default/web/tty', { containerId: 'c-tty', uid: 'uid-web' });
  v.sandboxes.set('uid-web', 's-web');
  return v;
}

/** The view, its runtime answering sessions at `path` of a fake runtime streaming server. */
async function viewBehindRuntime(path: string): Promise<FakeKubeletView> {
  runtime = await fakeRuntime();
  const v = view();
  v.streamingAnswer = `${runtime.base}${path}`;
  return v;
}

/** The fake runtime viewBehindRuntime started for this test. */
function startedRuntime(): NonNullable<typeof runtime> {
  expect(runtime).toBeDefined();
  return runtime!;
}

async function start(v: FakeKubeletView, o: { auth?: Partial<KubeletServerAuth>; debuggingHandlers?: boolean; idleMs?: number } = {}): Promise<number> {
  app = serveApp(buildKubeletApp({
    view: v,
    auth: o.auth ? { anonymous: false, authorizationMode: 'AlwaysAllow', nodeName: 'node-a', ...o.auth } : undefined,
    debuggingHandlers: o.debuggingHandlers ?? true,
    ...(o.idleMs !== undefined ? { streamingIdleTimeoutMs: o.idleMs } : {}),
  }));
  return app.port();
}

const SPDY = { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' };
const WEBSOCKET = {
  Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'Sec-WebSocket-Protocol': 'v4.channel.k8s.io',
};

/** Sends a raw request (and `early` bytes right after it); resolves with the client socket and a reader of all it got. */
async function send(port: number, method: string, path: string, headers: Record<string, string>, early = '') {
  const socket = connect(port, '127.0.0.1');
  clients.push(socket);
  let got = '';
  socket.on('data', (d: Buffer) => (got += d.toString()));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const lines = Object.entries({ Host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`${method} ${path} HTTP/1.1\r\n${lines}\r\n${early}`);
  // Resolves on the data event that brings `text` (or at once if it came), not on a poll.
  const until = (text: string, ms = 5000) => new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!got.includes(text)) return;
      done();
      resolve();
    };
    // A deadline, not a wait: the text normally arrives first and clears it; this only bounds a failure.
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for ${JSON.stringify(text)}; got ${JSON.stringify(got)}`));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      socket.off('data', check);
    };
    socket.on('data', check);
    check();
  });
  return { socket, got: () => got, until, closed };
}

/** A whole non-upgraded answer: status, headers and body, once the server closed the connection. */
async function answer(port: number, method: string, path: string, headers: Record<string, string>) {
  const c = await send(port, method, path, headers);
  await c.closed;
  const [head, ...body] = c.got().split('\r\n\r\n');
  return { status: Number(head!.split(' ')[1]), head: head!, body: body.join('\r\n\r\n') };
}

describe('streaming routes: the proxied session', () => {
  it('relays the runtime\'s 101 and the bytes both ways, early bytes included, for exec over SPDY', async () => {
    const v = await viewBehindRuntime('/session/abc?token=1');
    const port = await start(v);
    const c = await send(port, 'POST', '/exec/default/web/app?command=sh&command=-c&command=echo%20hi&input=1&output=1&error=1',
      { ...SPDY, Authorization: 'Bearer secret', 'X-Forwarded-For': '10.0.0.9' }, 'early');
    await c.until('echo:early|');
    expect(c.got()).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(c.got()).toContain('X-Stream-Protocol-Version: v4.channel.k8s.io\r\n');
    expect(c.got()).toContain('hello from runtime|');
    c.socket.write('ping');
    await c.until('echo:ping|');

    expect(v.sessions).toEqual([{
      kind: 'exec', request: { container_id: 'c-app', cmd: ['sh', '-c', 'echo hi'], stdin: true, stdout: true, stderr: true, tty: false },
    }]);
    const [seen] = startedRuntime().seen;
    // The runtime URL's path and query, the client's method and upgrade headers; not its credentials.
    expect(seen).toMatchObject({ method: 'POST', url: '/session/abc?token=1' });
    expect(seen!.headers).toMatchObject({ upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io', 'x-forwarded-for': '10.0.0.9, 127.0.0.1' });
    expect(seen!.headers.authorization).toBeUndefined();
  });

  it('ends the client\'s connection when the runtime ends the session', async () => {
    const v = await viewBehindRuntime('/session/x');
    const c = await send(await start(v), 'GET', '/exec/default/web/app?command=true&output=1', SPDY);
    await c.until('hello from runtime|');
    startedRuntime().sockets[0]!.end('bye|');
    await c.closed;
    expect(c.got().endsWith('bye|')).toBe(true);
  });

  it('passes a WebSocket upgrade with its Sec-WebSocket headers for port forward, ports from the query', async () => {
    const v = await viewBehindRuntime('/session/pf');
    const c = await send(await start(v), 'GET', '/portForward/default/web?port=8080,9090', WEBSOCKET);
    await c.until('hello from runtime|');
    expect(v.sessions).toEqual([{ kind: 'portForward', podSandboxId: 's-web', ports: [8080, 9090] }]);
    expect(startedRuntime().seen[0]!.headers).toMatchObject({
      'sec-websocket-key': WEBSOCKET['Sec-WebSocket-Key'], 'sec-websocket-protocol': 'v4.channel.k8s.io', 'sec-websocket-version': '13',
    });
  });

  it('asks port forward over SPDY for no ports, and takes the {uid} form', async () => {
    const v = await viewBehindRuntime('/session/pf');
    const c = await send(await start(v), 'POST', '/portForward/default/web/uid-web?port=1', SPDY);
    await c.until('hello from runtime|');
    expect(v.sessions).toEqual([{ kind: 'portForward', podSandboxId: 's-web', ports: [] }]);
  });

  it('attaches with the container\'s own terminal setting and the {uid} form', async () => {
    const v = await viewBehindRuntime('/session/at');
    const port = await start(v);
    const a = await send(port, 'POST', '/attach/default/web/uid-web/tty?input=1&output=1&error=1', SPDY);
    await a.until('hello from runtime|');
    const b = await send(port, 'POST', '/attach/default/web/app?output=1&error=1&tty=1', SPDY);
    await b.until('hello from runtime|');
    expect(v.sessions).toEqual([
      { kind: 'attach', request: { container_id: 'c-tty', stdin: true, stdout: true, stderr: true, tty: true } },
      // tty=1 drops stderr, but the container was made without a terminal: none is asked for.
      { kind: 'attach', request: { container_id: 'c-app', stdin: false, stdout: true, stderr: false, tty: false } },
    ]);
  });

  it('attaches to an ephemeral container by its name, with its terminal setting', async () => {
    const v = await viewBehindRuntime('/session/dbg');
    v.podsList[0]!.spec.ephemeralContainers = [{ name: 'debugger', image: 'busybox', stdin: true, tty: true, targetContainerName: 'app' }];
    v.containers.set('default/web/debugger', { containerId: 'c-dbg', uid: 'uid-web' });
    const c = await send(await start(v), 'POST', '/attach/default/web/debugger?input=1&output=1&tty=1', SPDY);
    await c.until('hello from runtime|');
    expect(v.sessions).toEqual([{ kind: 'attach', request: { container_id: 'c-dbg', stdin: true, stdout: true, stderr: false, tty: true } }]);
  });

  it('closes a joined connection silent both ways for streamingConnectionIdleTimeout', async () => {
    const v = await viewBehindRuntime('/session/idle');
    const c = await send(await start(v, { idleMs: 300 }), 'POST', '/exec/default/web/app?command=sh&input=1', SPDY);
    await c.until('hello from runtime|');
    const opened = Date.now();
    // Traffic keeps it open past the 300 ms idle timeout (the socket's own, on the real clock): each
    // line is sent when the one before has come back, for 600 ms…
    for (let i = 0; Date.now() - opened < 600; i += 1) {
      c.socket.write(`t${i}`);
      await c.until(`echo:t${i}|`);
    }
    // …silence closes it.
    await c.closed;
    expect(Date.now() - opened).toBeGreaterThan(800);
  });
});

describe('streaming routes: answers before the upgrade', () => {
  it.each([
    ['/exec/default/web/app?command=ls', 400, 'you must specify at least 1 of stdin, stdout, stderr'],
    ['/exec/default/nope/app?command=ls&output=1', 404, 'pod does not exist'],
    ['/exec/default/web/nope?command=ls&output=1', 500, 'container not found ("nope")'],
    ['/exec/default/web/other-uid/app?command=ls&output=1', 500, 'container not found ("app")'],
    ['/attach/default/nope/app?output=1', 404, 'pod does not exist'],
    ['/portForward/default/nope', 404, 'pod does not exist'],
    ['/portForward/default/web/other-uid', 404, 'pod not found'],
  ])('answers %s with %i and Go\'s message', async (path, status, message) => {
    const v = view();
    const res = await answer(await start(v), 'POST', path, SPDY);
    expect([res.status, res.body]).toEqual([status, message]);
    expect(v.sessions).toEqual([]);
  });

  it('answers a WebSocket port forward without ports with 400', async () => {
    const res = await answer(await start(view()), 'GET', '/portForward/default/web', WEBSOCKET);
    expect([res.status, res.body]).toEqual([400, 'query parameter "port" is required']);
  });

  it('answers 500 for a pod without a sandbox', async () => {
    const v = view();
    v.sandboxes.clear();
    const res = await answer(await start(v), 'POST', '/portForward/default/web', SPDY);
    expect([res.status, res.body]).toEqual([500, 'pod not found ("web_default")']);
  });

  it('answers a request that asks for no upgrade with 500 Upgrade request required, without asking the runtime', async () => {
    const v = view();
    const port = await start(v);
    const res = await app!.inject({ method: 'POST', url: '/exec/default/web/app?command=ls&output=1' });
    expect([res.statusCode, res.body]).toEqual([500, 'Upgrade request required']);
    expect(port).toBeGreaterThan(0);
    expect(v.sessions).toEqual([]);
  });

  it.each([
    [new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'Exec: container "c-app" not found'), 404, 'Exec: container "c-app" not found'],
    [new KubeletError('KLT_ERR_CRI_FAILED', 'Exec: boom'), 500, 'Exec: boom'],
    [new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', 'Exec: unknown method'), 500,
      'the container runtime does not serve Exec (it has no CRI streaming server): Exec: unknown method'],
  ])('answers the runtime\'s refusal %s with %i', async (err, status, message) => {
    const v = view();
    v.streamingAnswer = err;
    const res = await answer(await start(v), 'POST', '/exec/default/web/app?command=ls&output=1', SPDY);
    expect([res.status, res.body]).toEqual([status, message]);
  });

  it('relays a runtime\'s error answer as it is, and refuses a non-error non-upgrade answer', async () => {
    runtime = await fakeRuntime();
    const v = view();
    const port = await start(v);
    v.streamingAnswer = `${runtime.base}/refused`;
    const refused = await answer(port, 'POST', '/exec/default/web/app?command=ls&output=1', SPDY);
    expect([refused.status, refused.body]).toEqual([404, 'session not found']);
    expect(refused.head).toContain('Content-Type: text/plain');
    v.streamingAnswer = `${runtime.base}/ok`;
    const ok = await answer(port, 'POST', '/exec/default/web/app?command=ls&output=1', SPDY);
    expect([ok.status, ok.body]).toEqual([500, 'invalid upgrade response: status code 200\n']);
  });

  it('answers 500 naming the failure when the runtime\'s streaming server cannot be reached', async () => {
    const v = view();
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    v.streamingAnswer = `http://127.0.0.1:${deadPort}/session/x`;
    const res = await answer(await start(v), 'POST', '/exec/default/web/app?command=ls&output=1', SPDY);
    expect(res.status).toBe(500);
    expect(res.body).toMatch(/^error dialing backend: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/);
  });
});

describe('streaming routes: authentication and authorization before the upgrade', () => {
  it('answers an upgrade request without credentials with 401', async () => {
    const v = view();
    const res = await answer(await start(v, { auth: { anonymous: false } }), 'POST', '/exec/default/web/app?command=ls&output=1', SPDY);
    expect([res.status, res.body]).toEqual([401, 'Unauthorized']);
    expect(v.sessions).toEqual([]);
  });

  it('answers 403 to a user the webhook denies nodes/proxy, after asking for exactly that', async () => {
    const asked: NodeRequestAttributes[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(a), { allowed: false }) };
    const v = view();
    const port = await start(v, { auth: { anonymous: true, authorizationMode: 'Webhook', accessReviewer } });
    for (const path of ['/exec/default/web/app?command=ls&output=1', '/attach/default/web/app?output=1', '/portForward/default/web']) {
      const res = await answer(port, 'POST', path, SPDY);
      expect(res.status).toBe(403);
      expect(res.body).toContain('subresource(s)=[proxy]');
    }
    expect(asked.map((a) => [a.resource, a.subresource, a.verb, a.name])).toEqual(Array(3).fill(['nodes', 'proxy', 'create', 'node-a']));
    expect(v.sessions).toEqual([]);
  });

  it('lets a user the webhook allows nodes/proxy through to the runtime (GET is verb get)', async () => {
    runtime = await fakeRuntime();
    const asked: NodeRequestAttributes[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(a), { allowed: a.subresource === 'proxy' }) };
    const v = view();
    v.streamingAnswer = `${runtime.base}/session/ok`;
    const c = await send(await start(v, { auth: { anonymous: true, authorizationMode: 'Webhook', accessReviewer } }),
      'GET', '/exec/default/web/app?command=ls&output=1', WEBSOCKET);
    await c.until('hello from runtime|');
    expect(asked.map((a) => [a.subresource, a.verb])).toEqual([['proxy', 'get']]);
  });

  it.each(['/exec/default/web/app?command=ls&output=1', '/attach/default/web/app?output=1', '/portForward/default/web'])(
    'answers the upgrade request %s with 405 when enableDebuggingHandlers is false',
    async (path) => {
      const v = view();
      const res = await answer(await start(v, { debuggingHandlers: false }), 'POST', path, SPDY);
      expect([res.status, res.body]).toEqual([405, 'Debug endpoints are disabled.\n']);
      expect(v.sessions).toEqual([]);
    },
  );

  it('still serves other paths to an upgrade request, then closes the connection', async () => {
    const res = await answer(await start(view()), 'GET', '/pods', { Connection: 'Upgrade', Upgrade: 'h2c' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n$/g, '')) as unknown).toBeTruthy();
  });
});
