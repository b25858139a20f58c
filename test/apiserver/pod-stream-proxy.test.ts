/**
 * pods/exec, pods/attach, pods/portforward and nodes/proxy through the test API server to a fake
 * kubelet (HTTPS, requiring the API server's client certificate) that answers upgrades and plain
 * requests; the client is a raw TCP socket sending upgrade requests as kubectl does.
 */
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from './index.js';
import { KUBELET_CLIENT_USER } from './kubelet-client.js';
import { createTestPki } from './pki.js';

interface Seen { method: string; url: string; user: string; headers: IncomingMessage['headers'] }

let api: TestApiServer;
let kubelet: Server;
const seen: Seen[] = [];
const sockets: Duplex[] = [];

beforeEach(async () => {
  seen.length = 0;
  api = await startTestApiServer({ token: 't', kubeletDialHost: '127.0.0.1' });
  const pki = await createTestPki();
  // Only its PEMs serve here: the files it wrote are not needed.
  rmSync(pki.dir, { recursive: true, force: true });
  const record = (req: IncomingMessage) => seen.push({
    method: req.method ?? '', url: req.url ?? '', headers: req.headers, user: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN),
  });
  kubelet = createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: [await api.kubeletClientCaPem()], requestCert: true, rejectUnauthorized: true }, (req, res) => {
    record(req);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"kind":"PodList","items":[]}');
  });
  kubelet.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    record(req);
    sockets.push(socket);
    if (req.url?.includes('command=refuse')) {
      socket.end('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 27\r\n\r\ncontainer not found ("app")');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${String(req.headers.upgrade)}\r\n\r\nkubelet|`);
    socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString()}|`));
  });
  await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
  api.store.create('nodes', { metadata: { name: 'n1' }, status: {
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: (kubelet.address() as AddressInfo).port } },
  } });
  api.store.create('pods', { metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'i' }] } });
  api.store.create('pods', { metadata: { name: 'two', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'i' }] } });
  api.store.create('pods', { metadata: { name: 'pending', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'i' }] } });
});

const clients: Socket[] = [];
afterEach(async () => {
  for (const s of [...clients.splice(0), ...sockets.splice(0)]) s.destroy();
  kubelet.closeAllConnections();
  await new Promise((r) => kubelet.close(r));
  await api.close();
});

const SPDY = { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' };

async function send(method: string, path: string, headers: Record<string, string>) {
  const socket = connect(api.port, '127.0.0.1');
  clients.push(socket);
  let got = '';
  socket.on('data', (d: Buffer) => (got += d.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await once(socket, 'connect');
  const lines = Object.entries({ Host: `127.0.0.1:${api.port}`, Authorization: 'Bearer t', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`${method} ${path} HTTP/1.1\r\n${lines}\r\n`);
  return { socket, got: () => got, closed };
}

describe('pods/exec, attach and portforward through the test API server', () => {
  it.each([
    ['/api/v1/namespaces/default/pods/web/exec?command=sh&command=-c&command=echo%20a&stdin=true&stdout=true&stderr=true&tty=false',
      '/exec/default/web/app?input=1&output=1&error=1&command=sh&command=-c&command=echo+a'],
    ['/api/v1/namespaces/default/pods/two/exec?container=b&command=ls&stdout=1&stderr=false&tty=true',
      '/exec/default/two/b?output=1&tty=1&command=ls'],
    // PodAttachOptions' stdout and stderr default to true.
    ['/api/v1/namespaces/default/pods/web/attach?stdin=true', '/attach/default/web/app?input=1&output=1&error=1'],
    ['/api/v1/namespaces/default/pods/web/portforward', '/portForward/default/web'],
    ['/api/v1/namespaces/default/pods/web/portforward?ports=80&ports=8080', '/portForward/default/web?port=80%2C8080'],
  ])('passes %s to the kubelet as %s, upgraded, as the API server\'s own client', async (path, kubeletPath) => {
    const c = await send('POST', path, SPDY);
    await expect.poll(() => c.got()).toContain('kubelet|');
    expect(c.got()).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    c.socket.write('hi');
    await expect.poll(() => c.got()).toContain('echo:hi|');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: kubeletPath, user: KUBELET_CLIENT_USER });
    expect(seen[0]!.headers).toMatchObject({ upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' });
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('relays the kubelet\'s refusal as the kubelet gave it', async () => {
    const c = await send('POST', '/api/v1/namespaces/default/pods/web/exec?container=app&command=refuse&stdout=true', SPDY);
    await c.closed;
    expect(c.got()).toMatch(/^HTTP\/1\.1 500 Internal Server Error\r\n/);
    expect(c.got().endsWith('\r\n\r\ncontainer not found ("app")')).toBe(true);
  });

  it.each([
    ['/api/v1/namespaces/default/pods/two/exec?command=ls', 400, 'a container name must be specified for pod two, choose one of: [a b]'],
    ['/api/v1/namespaces/default/pods/web/exec?container=nope&command=ls', 400, 'container nope is not valid for pod web'],
    ['/api/v1/namespaces/default/pods/ghost/attach', 404, 'pods "ghost" not found'],
    ['/api/v1/namespaces/default/pods/pending/portforward', 400, 'pod pending does not have a host assigned'],
  ])('answers %s with a %i Status before reaching the kubelet', async (path, code, message) => {
    const c = await send('POST', path, SPDY);
    await c.closed;
    const body = c.got().split('\r\n\r\n').slice(1).join('');
    expect(c.got()).toMatch(new RegExp(`^HTTP/1\\.1 ${code} `));
    expect(JSON.parse(body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n$/g, '')) as unknown).toMatchObject({ kind: 'Status', code, message });
    expect(seen).toEqual([]);
  });

  it('answers a kubelet it cannot dial with a 500 Status naming the dial error, as kubectl shows it', async () => {
    kubelet.closeAllConnections();
    await new Promise((r) => kubelet.close(r));
    const c = await send('POST', '/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true', SPDY);
    await c.closed;
    expect(c.got()).toMatch(/^HTTP\/1\.1 500 Internal Server Error\r\n/);
    expect(c.got()).toContain('Content-Type: application/json\r\n');
    const status = JSON.parse(c.got().split('\r\n\r\n')[1]!) as { kind: string; code: number; message: string };
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', code: 500 });
    expect(status.message).toMatch(/^error dialing backend: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  it('answers a request that asks for no upgrade with 400 Upgrade request required', async () => {
    const res = await fetch(`${api.url}/api/v1/namespaces/default/pods/web/exec?command=ls`, { method: 'POST', headers: { authorization: 'Bearer t' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ kind: 'Status', message: 'Upgrade request required' });
  });

  it('answers an upgrade without credentials with 401', async () => {
    const c = await send('POST', '/api/v1/namespaces/default/pods/web/exec?command=ls', { ...SPDY, Authorization: 'Bearer wrong' });
    await c.closed;
    expect(c.got()).toMatch(/^HTTP\/1\.1 401 /);
    expect(seen).toEqual([]);
  });
});

describe('nodes/proxy through the test API server', () => {
  it('passes a plain request to the kubelet path with its query, and the answer back', async () => {
    const res = await fetch(`${api.url}/api/v1/nodes/n1/proxy/pods?x=1`, { headers: { authorization: 'Bearer t' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ kind: 'PodList', items: [] });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/pods?x=1', user: KUBELET_CLIENT_USER });
  });

  it('passes an upgrade through', async () => {
    const c = await send('GET', '/api/v1/nodes/n1/proxy/exec/default/web/app?output=1&command=ls', { Connection: 'Upgrade', Upgrade: 'websocket' });
    await expect.poll(() => c.got()).toContain('kubelet|');
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/exec/default/web/app?output=1&command=ls' });
  });
});
