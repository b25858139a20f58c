import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import Fastify from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenFastifyOrRetry } from '../../../src/adapters/debug-server/listen-fastify.js';
import { listenOrRetry, type OptionalServer } from '../../../src/adapters/http/listen-or-retry.js';
import { freePort, until } from '../../support/daemon.js';

let server: OptionalServer | undefined;
let squatter: Server | undefined;
afterEach(async () => {
  await server?.close();
  squatter?.close();
});

/** A server answering 200 `ok` to everything. */
function okServer() {
  return createHttpServer((_req, res) => res.end('ok'));
}

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { lines, logger };
}

describe('listenOrRetry (#14)', () => {
  it('answers at once on a taken port, logs address and reason, and listens once the port is free', async () => {
    const port = await freePort();
    squatter = createServer((s) => s.destroy());
    await new Promise<void>((done) => squatter!.listen(port, '127.0.0.1', done));
    const { lines, logger } = logLines();
    server = await listenOrRetry(okServer(), '127.0.0.1', port, { what: 'test server', logger, firstDelayMs: 20 });
    expect([server.listening, server.address]).toEqual([false, `127.0.0.1:${port}`]);
    expect(lines[0]).toMatchObject({ msg: 'Optional server cannot listen; retrying in the background', server: 'test server', address: `127.0.0.1:${port}`, reason: expect.stringContaining('EADDRINUSE'), retryInMs: 20 });
    await new Promise((done) => squatter!.close(done));
    await until('the retry', async () => (await fetch(`http://127.0.0.1:${port}/x`)).status === 200, 5000);
    expect(lines.at(-1)).toMatchObject({ msg: 'Optional server listening after retry', address: `127.0.0.1:${port}` });
    // The back-off doubled between failed attempts.
    const delays = lines.filter((l) => l.retryInMs !== undefined).map((l) => l.retryInMs as number);
    expect(delays.every((d, i) => i === 0 || d === Math.min(delays[i - 1]! * 2, 30_000))).toBe(true);
  });

  it('stops retrying when closed', async () => {
    const port = await freePort();
    squatter = createServer((s) => s.destroy());
    await new Promise<void>((done) => squatter!.listen(port, '127.0.0.1', done));
    const { lines, logger } = logLines();
    server = await listenOrRetry(okServer(), '127.0.0.1', port, { what: 'test server', logger, firstDelayMs: 20 });
    await server.close();
    const after = lines.length;
    // An absence, shown against a control: a second server on the same taken port, started after
    // the close with the same back-off. Its retries are timed from later, so had the closed server's
    // retries gone on (at 20, 60, 140 ms), each would have been logged before the control's.
    const control = logLines();
    const other = await listenOrRetry(okServer(), '127.0.0.1', port, { what: 'control server', logger: control.logger, firstDelayMs: 20 });
    try {
      await vi.waitFor(() => expect(control.lines.filter((l) => l.retryInMs !== undefined).length).toBeGreaterThanOrEqual(4), { timeout: 5_000, interval: 10 });
    } finally {
      await other.close();
    }
    expect(lines.length).toBe(after);
  });

  it('listens at once on a free port and closes', async () => {
    server = await listenOrRetry(okServer(), '127.0.0.1', 0, { what: 'test server' });
    expect(server.listening).toBe(true);
    expect((await fetch(`http://${server.address}/x`)).status).toBe(200);
    await server.close();
    await expect(fetch(`http://${server.address}/x`)).rejects.toThrow();
  });

  it('does the same for a fastify app (the debug server), closing the app too', async () => {
    const app = Fastify();
    app.get('/x', async () => 'ok');
    let appClosed = false;
    app.addHook('onClose', async () => { appClosed = true; });
    server = await listenFastifyOrRetry(app, '127.0.0.1', 0, { what: 'test server' });
    expect(server.listening).toBe(true);
    expect((await fetch(`http://${server.address}/x`)).status).toBe(200);
    await server.close();
    expect(appClosed).toBe(true);
    await expect(fetch(`http://${server.address}/x`)).rejects.toThrow();
  });
});
