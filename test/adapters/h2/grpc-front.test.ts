import { connect as h2connect, createServer as h2server, type Http2Server } from 'node:http2';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closingGracefully, serveOnFirstConnection } from '../../../src/adapters/h2/grpc-front.js';

const logger = pino({ level: 'silent' });
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One GET over a connection of its own: the body, or the error's text. */
function get(socket: string, path: string): Promise<string> {
  const session = h2connect('http://localhost', { createConnection: () => connect(socket) });
  session.on('error', () => {});
  return new Promise((resolve) => {
    const req = session.request({ ':path': path });
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('error', (err: Error) => resolve(`error: ${err.message}`));
    req.on('close', () => {
      session.close();
      resolve(body);
    });
    req.end();
  });
}

/** A front on a socket of its own, whose start makes an HTTP/2 server answering with the inner socket's path. */
async function front(failFirst = false) {
  const dir = mkdtempSync(join(tmpdir(), 'grpc-front-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const socket = join(dir, 'kubelet.sock');
  const starts: string[] = [];
  const servers: Http2Server[] = [];
  const served = await serveOnFirstConnection(socket, async (inner) => {
    starts.push(inner);
    if (failFirst && starts.length === 1) throw new Error('the first start fails');
    const server = h2server((_req, res) => res.end(inner));
    servers.push(server);
    await new Promise<void>((r) => server.listen(inner, () => r()));
    return { close: () => new Promise<void>((r) => server.close(() => r())) };
  }, logger, 'The test socket');
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await served.close();
  });
  return { socket, starts, servers, close: async () => { closed = true; await served.close(); } };
}

describe('serveOnFirstConnection', () => {
  it('listens at once and starts its server only when a client connects, once for every later connection', async () => {
    const f = await front();
    expect(existsSync(f.socket)).toBe(true);
    expect(f.starts).toEqual([]);
    const [a, b] = await Promise.all([get(f.socket, '/a'), get(f.socket, '/b')]);
    expect(f.starts).toHaveLength(1);
    expect([a, b]).toEqual([f.starts[0], f.starts[0]]);
    // The inner socket sits in a directory of its own, not beside the public one.
    expect(dirname(f.starts[0]!)).not.toBe(dirname(f.socket));
    expect(await get(f.socket, '/c')).toBe(f.starts[0]);
    expect(f.starts).toHaveLength(1);
  });

  it('closes the connection a failed start could not serve, and starts again at the next one', async () => {
    const f = await front(true);
    expect(await get(f.socket, '/a')).toMatch(/^error: /);
    expect(await get(f.socket, '/b')).toBe(f.starts[1]);
    expect(f.starts).toHaveLength(2);
  });

  it('on close, stops the server it started and removes its directory', async () => {
    const f = await front();
    await get(f.socket, '/a');
    await f.close();
    expect(f.servers[0]!.listening).toBe(false);
    expect(existsSync(dirname(f.starts[0]!))).toBe(false);
  });
});

describe('closingGracefully', () => {
  it('waits for the server to finish its calls, and shuts it under them after the grace', async () => {
    const calls: string[] = [];
    await closingGracefully({ tryShutdown: (done) => { calls.push('try'); done(); }, forceShutdown: () => calls.push('force') }).close();
    expect(calls).toEqual(['try']);
    vi.useFakeTimers();
    try {
      const closing = closingGracefully({ tryShutdown: () => calls.push('try again'), forceShutdown: () => calls.push('force') }).close();
      await vi.advanceTimersByTimeAsync(2000);
      await closing;
      expect(calls).toEqual(['try', 'try again', 'force']);
    } finally {
      vi.useRealTimers();
    }
  });
});
