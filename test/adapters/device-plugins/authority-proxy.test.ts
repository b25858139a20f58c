import { connect as h2connect, createServer as h2server, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedHeaderBlock, startAuthorityProxy } from '../../../src/adapters/device-plugins/authority-proxy.js';
import { encodeHeaderBlock, HpackDecoder } from '../../../src/adapters/h2/hpack.js';

const dir = mkdtempSync(join(tmpdir(), 'authority-proxy-'));
const target = join(dir, 'target.sock');
const front = join(dir, 'front.sock');
const seen: string[] = [];
const server = h2server();
server.on('stream', (stream, headers) => {
  seen.push(String(headers[':authority']));
  stream.respond({ ':status': 200 });
  stream.end(String(headers[':path']));
});
let proxy: { close(): Promise<void> };

/** One request with this authority, over a connection of its own (as a Go device plugin makes). */
function request(socket: string, authority: string, path = '/x'): Promise<{ status: number | undefined; body: string; rst: number }> {
  const session: ClientHttp2Session = h2connect('http://localhost', { createConnection: () => connect(socket) });
  return new Promise((resolve) => {
    const req = session.request({ ':path': path, ':authority': authority, 'x-long': 'v'.repeat(20_000) });
    let status: number | undefined;
    let body = '';
    req.on('response', (h) => { status = Number(h[':status']); });
    req.setEncoding('utf8').on('data', (c: string) => { body += c; });
    req.on('error', () => {});
    req.on('close', () => {
      session.close();
      resolve({ status, body, rst: req.rstCode ?? 0 });
    });
    req.end();
  });
}

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(target, () => r()));
  proxy = await startAuthorityProxy(front, target, pino({ level: 'silent' }));
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the authority proxy in front of kubelet.sock', () => {
  it('shows why it is there: node:http2 refuses a socket path as the authority', async () => {
    expect((await request(target, '/var/lib/kubelet/device-plugins/kubelet.sock')).rst).toBe(1);
  });

  it('passes a request whose authority is a socket path, as localhost, with its large headers split into CONTINUATION frames', async () => {
    const answer = await request(front, '/var/lib/kubelet/device-plugins/kubelet.sock', '/v1beta1.Registration/Register');
    expect(answer).toMatchObject({ status: 200, body: '/v1beta1.Registration/Register', rst: 0 });
    expect(seen.at(-1)).toBe('localhost');
  });

  it('leaves a host name as it is', async () => {
    expect((await request(front, 'example.com:80')).status).toBe(200);
    expect(seen.at(-1)).toBe('example.com:80');
  });

  it('rewrites only the authority of a header block', () => {
    const block = encodeHeaderBlock([[':method', 'POST'], [':authority', '/a/b.sock'], ['te', 'trailers']]);
    expect(new HpackDecoder().decode(fixedHeaderBlock(new HpackDecoder(), block))).toEqual([[':method', 'POST'], [':authority', 'localhost'], ['te', 'trailers']]);
  });
});
