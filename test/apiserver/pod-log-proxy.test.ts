import { rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from './index.js';
import { createTestPki } from './pki.js';
import { KUBELET_CLIENT_USER } from './kubelet-client.js';
import { kubeletLogLocation } from './pod-log-proxy.js';
import { ObjectStore } from './store.js';

/** A kubelet's log endpoint: HTTPS, requiring a client certificate from `clientCaPem`. */
interface FakeKubelet {
  server: Server;
  port: number;
  /** Each request: its path, the client certificate's CN, and the response to write to. */
  requests: Array<{ path: string; user: string; res: import('node:http').ServerResponse; closed: boolean }>;
}

async function startFakeKubelet(clientCaPem: string): Promise<FakeKubelet> {
  const pki = await createTestPki();
  // Only its PEMs serve here: the files it wrote are not needed.
  rmSync(pki.dir, { recursive: true, force: true });
  const requests: FakeKubelet['requests'] = [];
  const server = createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: [clientCaPem], requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
    const entry = { path: req.url ?? '', user: String(cn), res, closed: false };
    res.on('close', () => (entry.closed = true));
    requests.push(entry);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

let api: TestApiServer;
let kubelet: FakeKubelet;

beforeEach(async () => {
  api = await startTestApiServer({ token: 't', kubeletDialHost: '127.0.0.1' });
  kubelet = await startFakeKubelet(await api.kubeletClientCaPem());
  api.store.create('nodes', { metadata: { name: 'n1' }, status: {
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } },
  } });
  api.store.create('pods', { metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'i' }] } });
});

afterEach(async () => {
  kubelet.server.closeAllConnections();
  await new Promise((r) => kubelet.server.close(r));
  await api.close();
});

/** GET on the API server; resolves with the response as soon as its head arrives. */
function get(path: string): Promise<IncomingMessage> {
  const url = new URL(path, api.url);
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port: api.port, path: url.pathname + url.search, headers: { authorization: 'Bearer t' } }, resolve)
      .on('error', reject).end();
  });
}

async function bodyOf(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const c of res as AsyncIterable<Buffer>) text += c.toString();
  return text;
}

const nextChunk = (res: IncomingMessage) => new Promise<string>((resolve) => res.once('data', (c: Buffer) => resolve(c.toString())));

describe('pods/log through the test API server', () => {
  it('reaches the kubelet\'s /containerLogs with the log options, as the API server\'s own client certificate', async () => {
    const pending = get('/api/v1/namespaces/default/pods/web/log?tailLines=3&timestamps=true&container=app&pretty=true');
    await expect.poll(() => kubelet.requests.length).toBe(1);
    const [upstream] = kubelet.requests;
    expect(upstream!.path).toBe('/containerLogs/default/web/app?timestamps=true&tailLines=3');
    expect(upstream!.user).toBe(KUBELET_CLIENT_USER);
    upstream!.res.end('a\nb\n');
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(await bodyOf(res)).toBe('a\nb\n');
  });

  it('streams the body through as the kubelet writes it, then ends with it', async () => {
    const pending = get('/api/v1/namespaces/default/pods/web/log?follow=true');
    await expect.poll(() => kubelet.requests.length).toBe(1);
    const upstream = kubelet.requests[0]!;
    upstream.res.writeHead(200, { 'Content-Type': 'text/plain' });
    upstream.res.write('first\n');
    const res = await pending;
    expect(res.headers['transfer-encoding']).toBe('chunked');
    // The second line is written only once the first has come out the other side: nothing is held back.
    expect(await nextChunk(res)).toBe('first\n');
    upstream.res.write('second\n');
    expect(await nextChunk(res)).toBe('second\n');
    const rest = bodyOf(res);
    upstream.res.end();
    expect(await rest).toBe('');
  });

  it('ends the response when the kubelet connection is cut mid-stream', async () => {
    const pending = get('/api/v1/namespaces/default/pods/web/log?follow=true');
    await expect.poll(() => kubelet.requests.length).toBe(1);
    const upstream = kubelet.requests[0]!;
    upstream.res.write('x\n');
    const res = await pending;
    const body = bodyOf(res).catch((err: Error) => `failed: ${err.message}`);
    upstream.res.socket?.destroy();
    expect(await body).toBe('x\n');
  });

  it('closes the kubelet stream when its client goes away', async () => {
    const pending = get('/api/v1/namespaces/default/pods/web/log?follow=true');
    await expect.poll(() => kubelet.requests.length).toBe(1);
    const upstream = kubelet.requests[0]!;
    upstream.res.write('x\n');
    const res = await pending;
    res.destroy();
    await expect.poll(() => upstream.closed).toBe(true);
  });

  it('passes the kubelet\'s failure through as a Status with its code and text', async () => {
    const pending = get('/api/v1/namespaces/default/pods/web/log?previous=true');
    await expect.poll(() => kubelet.requests.length).toBe(1);
    kubelet.requests[0]!.res.writeHead(400, { 'Content-Type': 'text/plain' }).end('previous terminated container "app" in pod "web" not found');
    const res = await pending;
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(await bodyOf(res))).toMatchObject({
      kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest', message: 'previous terminated container "app" in pod "web" not found',
    });
  });

  it.each([
    ['an unknown pod', '/api/v1/namespaces/default/pods/nope/log', 404, 'pods "nope" not found'],
    ['a pod on an unknown node', '/api/v1/namespaces/default/pods/lost/log', 404, 'nodes "gone" not found'],
    ['no container for a pod with two', '/api/v1/namespaces/default/pods/two/log', 400, 'a container name must be specified for pod two, choose one of: [a b]'],
    ['a container not in the pod', '/api/v1/namespaces/default/pods/web/log?container=nope', 400, 'container nope is not valid for pod web'],
  ])('answers %s with Go\'s Status', async (_what, path, code, message) => {
    api.store.create('pods', { metadata: { name: 'lost', namespace: 'default' }, spec: { nodeName: 'gone', containers: [{ name: 'app', image: 'i' }] } });
    api.store.create('pods', { metadata: { name: 'two', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'i' }] } });
    const res = await get(path);
    expect(res.statusCode).toBe(code);
    expect(JSON.parse(await bodyOf(res))).toMatchObject({ kind: 'Status', code, message });
    expect(kubelet.requests).toHaveLength(0);
  });

  it('answers a pod on no node yet with an empty log, as Go\'s LocationStreamer does without a location', async () => {
    api.store.create('pods', { metadata: { name: 'pending', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'i' }] } });
    const res = await get('/api/v1/namespaces/default/pods/pending/log');
    expect([res.statusCode, await bodyOf(res)]).toEqual([200, '']);
  });

  it('answers 500 naming the address when the kubelet cannot be reached', async () => {
    const port = kubelet.port;
    kubelet.server.closeAllConnections();
    await new Promise((r) => kubelet.server.close(r));
    kubelet.server = createServer(); // closed again by afterEach
    kubelet.server.listen(0, '127.0.0.1');
    const res = await get('/api/v1/namespaces/default/pods/web/log');
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(await bodyOf(res)).message).toContain(`https://127.0.0.1:${port}/containerLogs/default/web/app`);
  });
});

describe('kubeletLogLocation', () => {
  it('dials the node\'s address in Go\'s default preference order, on its kubelet endpoint port', () => {
    const store = new ObjectStore();
    store.create('nodes', { metadata: { name: 'n1' }, status: {
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'node-1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10999 } },
    } });
    store.create('nodes', { metadata: { name: 'n2' }, status: { addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }, { type: 'InternalIP', address: '10.0.0.2' }] } });
    store.create('pods', { metadata: { name: 'a', namespace: 'ns' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } });
    store.create('pods', { metadata: { name: 'b', namespace: 'ns' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'i' }] } });
    expect(kubeletLogLocation(store, 'ns', 'a', new URLSearchParams())).toEqual({ host: 'node-1', port: 10999, path: '/containerLogs/ns/a/c' });
    expect(kubeletLogLocation(store, 'ns', 'b', new URLSearchParams('follow=true'))).toEqual({ host: '10.0.0.2', port: 10250, path: '/containerLogs/ns/b/c?follow=true' });
  });
});
