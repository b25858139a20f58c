import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpSourceReader } from '../../../src/adapters/pod-sources/http-source.js';

const fixtureText = (name: string) => readFileSync(new URL(`../../fixtures/manifests/${name}`, import.meta.url), 'utf8');

/** A loopback server answering every request with `reply` (changeable), recording request headers. */
let server: Server;
let url: string;
let reply: { status: number; body: string; delayMs?: number };
let requests: IncomingHttpHeaders[];

beforeEach(async () => {
  requests = [];
  reply = { status: 200, body: '' };
  server = createServer((req, res) => {
    requests.push(req.headers);
    // The server's answer time under test (reply.delayMs), not a wait of the test's.
    setTimeout(() => {
      res.writeHead(reply.status, { 'content-type': 'application/yaml' });
      res.end(reply.body);
    }, reply.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const reader = (header: Record<string, string[]> = {}, timeoutMs?: number) =>
  createHttpSourceReader({ url, header, nodeName: 'node-1', ...(timeoutMs === undefined ? {} : { timeoutMs }) });

describe('createHttpSourceReader', () => {
  it('reads a single Pod as the source\'s one pod, stamped as an http pod', async () => {
    reply.body = fixtureText('web.yaml');
    const result = await reader().read();
    if (result.kind !== 'snapshot') throw new Error(JSON.stringify(result));
    expect(result.pods.map((p) => p.metadata.name)).toEqual(['web-node-1']);
    expect(result.pods[0]?.metadata.annotations?.['kubernetes.io/config.source']).toBe('http');
    expect(result.rejected).toEqual([]);
  });

  it('reads a PodList, JSON or YAML', async () => {
    reply.body = fixtureText('pod-list.yaml');
    const yaml = await reader().read();
    expect(yaml.kind === 'snapshot' && yaml.pods.map((p) => p.metadata.name)).toEqual(['one-node-1', 'two-node-1']);
    reply.body = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [JSON.parse(fixtureText('worker.json'))] });
    const json = await reader().read();
    expect(json.kind === 'snapshot' && json.pods.map((p) => p.metadata.name)).toEqual(['worker-node-1']);
  });

  it('sends every value of every configured header', async () => {
    reply.body = fixtureText('web.yaml');
    await reader({ Authorization: ['Bearer t0k3n'], 'X-Extra': ['a', 'b'] }).read();
    expect(requests[0]?.['authorization']).toBe('Bearer t0k3n');
    expect(requests[0]?.['x-extra']).toBe('a, b');
  });

  it('reports a non-200 answer as a failed read, so the pods fetched before stay', async () => {
    reply = { status: 500, body: 'oops' };
    expect(await reader().read()).toEqual({ kind: 'failed', origin: url, reason: `${url}: 500 Internal Server Error` });
  });

  it('reports an unreachable server and a timeout as failed reads', async () => {
    reply = { status: 200, body: fixtureText('web.yaml'), delayMs: 500 };
    const slow = await reader({}, 50).read();
    expect(slow).toMatchObject({ kind: 'failed', origin: url, reason: expect.stringContaining('timeout') });
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const port = (spare.address() as AddressInfo).port;
    await new Promise((resolve) => spare.close(resolve));
    const closed = createHttpSourceReader({ url: `http://127.0.0.1:${port}/pods`, header: {}, nodeName: 'n' });
    expect(await closed.read()).toMatchObject({ kind: 'failed', reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('gives an empty snapshot for an empty body, naming the URL (Go removes the pods too)', async () => {
    expect(await reader().read()).toEqual({ kind: 'snapshot', pods: [], rejected: [{ origin: url, reason: `zero-length data received from ${url}` }] });
  });

  it('answers unchanged when the body is the same as at the last snapshot, and reads it again after a failure', async () => {
    reply.body = fixtureText('web.yaml');
    const r = reader();
    expect((await r.read()).kind).toBe('snapshot');
    expect(await r.read()).toEqual({ kind: 'unchanged' });
    reply.body = fixtureText('worker.json');
    const changed = await r.read();
    expect(changed.kind === 'snapshot' && changed.pods[0]?.metadata.name).toBe('worker-node-1');
  });

  it.each([
    ['not YAML', 'a: [b', /couldn't parse as single or multiple pods/],
    ['an invalid pod', fixtureText('no-image.yaml'), /spec\.containers\[0\]\.image: Required value/],
    ['a list with one invalid item', fixtureText('pod-list.yaml').replace('image: busybox:1.36\n  - metadata', 'image: ""\n  - metadata'), /items\[0\]\.spec\.containers\[0\]\.image/],
  ])('fails the whole read on %s, as Go does', async (_what, body, reason) => {
    reply.body = body;
    const result = await reader().read();
    expect(result).toMatchObject({ kind: 'failed', origin: url });
    if (result.kind === 'failed') expect(result.reason).toMatch(reason);
  });

  it('keeps the first of two pods of one name in a list and rejects the second', async () => {
    reply.body = fixtureText('pod-list.yaml').replace('name: two', 'name: one');
    const result = await reader().read();
    if (result.kind !== 'snapshot') throw new Error(JSON.stringify(result));
    expect(result.pods).toHaveLength(1);
    expect(result.rejected).toEqual([{ origin: `${url} items[1]`, reason: expect.stringContaining('duplicate pod name "default/one-node-1"') }]);
  });
});
