import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDebugServer } from '../../../src/adapters/debug-server/server.js';
import { startHealthz } from '../../../src/adapters/http/healthz.js';
import { joinHostPort, listenHttpServer, type RunningServer } from '../../../src/adapters/http/listen.js';

describe('joinHostPort', () => {
  it.each([
    ['127.0.0.1', 10250, '127.0.0.1:10250'],
    ['::1', 10250, '[::1]:10250'],
    ['::', 0, '[::]:0'],
    ['node-a', 80, 'node-a:80'],
  ])('joins %s and %s as %s', (host, port, joined) => {
    expect(joinHostPort(host, port)).toBe(joined);
  });
});

describe('listenHttpServer', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
  });

  it('reports the real port of port 0 on IPv4', async () => {
    const server = await listenHttpServer(createHttpServer(), { host: '127.0.0.1', port: 0, what: 'the test port', retryable: true });
    running.push(server);
    expect(server.address).toMatch(/^127\.0\.0\.1:[1-9]\d*$/);
  });

  it('brackets an IPv6 address: healthz on ::1 reports [::1]:port (it reported ::1:port before)', async () => {
    const server = await startHealthz('::1', 0, []);
    running.push(server);
    expect(server.address).toMatch(/^\[::1\]:[1-9]\d*$/);
  });

  it('brackets an IPv6 address for the debug server too', async () => {
    const server = await startDebugServer('[::1]:0', { actors: () => [], pods: () => [], journal: () => ({ path: null, records: 0 }) });
    running.push(server);
    expect(server.address).toMatch(/^\[::1\]:[1-9]\d*$/);
  });

  it('fails with KLT_ERR_HOST_IO naming what and where when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const err = await listenHttpServer(createHttpServer(), { host: '127.0.0.1', port, what: 'the test port', retryable: true }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'KLT_ERR_HOST_IO', retryable: true });
      expect((err as Error).message).toContain(`the test port 127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
