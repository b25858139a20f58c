import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpProbe } from '../../../src/adapters/probers/http-prober.js';
import { probeRequestHeaders, probeUserAgent } from '../../../src/domain/probe/target.js';

/** A loopback server whose routes each answer one way; it remembers the headers it received. */
let server: http.Server;
let port: number;
const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname + url.search, headers: req.headers });
    const status = Number(url.searchParams.get('status') ?? '200');
    switch (url.pathname) {
      case '/slow':
        // A server slower than the probe's timeout: the latency under test.
        setTimeout(() => res.end('late'), 3000).unref();
        return;
      case '/same-host':
        res.writeHead(302, { location: '/ok' }).end();
        return;
      case '/other-host':
        res.writeHead(302, { location: `http://localhost:${port}/ok` }).end('moved');
        return;
      case '/loop':
        res.writeHead(301, { location: '/loop' }).end();
        return;
      case '/big':
        res.end('x'.repeat(50_000));
        return;
      default:
        res.writeHead(status).end(status === 200 ? 'fine' : 'secret body');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const target = (path: string, timeoutSeconds = 1, headers = probeRequestHeaders([])) => ({
  kind: 'httpGet' as const,
  url: `http://127.0.0.1:${port}${path}`,
  headers,
  timeoutSeconds,
});

describe('httpProbe', () => {
  it.each([
    [200, 'success'],
    [204, 'success'],
    [399, 'success'],
    [400, 'failure'],
    [404, 'failure'],
    [500, 'failure'],
  ] as const)('judges status %i as %s', async (status, result) => {
    const outcome = await httpProbe(target(`/status?status=${status}`));
    expect(outcome.result).toBe(result);
  });

  it('keeps the body as output on success and never on failure', async () => {
    expect(await httpProbe(target('/'))).toEqual({ result: 'success', output: 'fine' });
    expect(await httpProbe(target('/x?status=500'))).toEqual({ result: 'failure', output: 'HTTP probe failed with statuscode: 500' });
  });

  it('sends the kube-probe User-Agent, Accept */* and the probe headers, without keep-alive', async () => {
    seen.length = 0;
    await httpProbe(target('/h', 1, probeRequestHeaders([{ name: 'x-probe', value: 'yes' }])));
    expect(seen[0]?.headers).toMatchObject({
      'user-agent': probeUserAgent(),
      accept: '*/*',
      'x-probe': 'yes',
      connection: 'close',
    });
  });

  it('sends the Host header the probe sets', async () => {
    seen.length = 0;
    await httpProbe(target('/h', 1, probeRequestHeaders([{ name: 'Host', value: 'app.example' }])));
    expect(seen[0]?.headers.host).toBe('app.example');
  });

  it('fails a response slower than the timeout', async () => {
    const started = Date.now();
    const outcome = await httpProbe(target('/slow', 1));
    expect(outcome.result).toBe('failure');
    expect(outcome.output).toContain('Client.Timeout exceeded');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('follows a redirect to the same host', async () => {
    seen.length = 0;
    expect(await httpProbe(target('/same-host'))).toEqual({ result: 'success', output: 'fine' });
    expect(seen.map((s) => s.path)).toEqual(['/same-host', '/ok']);
  });

  it('keeps the Host header of the probe across a relative redirect', async () => {
    seen.length = 0;
    await httpProbe(target('/same-host', 1, probeRequestHeaders([{ name: 'Host', value: 'app.example' }])));
    expect(seen.map((s) => [s.path, s.headers.host])).toEqual([
      ['/same-host', 'app.example'],
      ['/ok', 'app.example'],
    ]);
  });

  it('does not follow a redirect to another host and counts it as success with a warning', async () => {
    seen.length = 0;
    const outcome = await httpProbe(target('/other-host'));
    expect(outcome).toEqual({ result: 'success', warning: true, output: 'Probe terminated redirects, Response body: moved' });
    expect(seen.map((s) => s.path)).toEqual(['/other-host']);
  });

  it('fails after ten redirects', async () => {
    seen.length = 0;
    const outcome = await httpProbe(target('/loop'));
    expect(outcome.result).toBe('failure');
    expect(outcome.output).toContain('stopped after 10 redirects');
    expect(seen).toHaveLength(10);
  });

  it('keeps at most 10 KiB of the body', async () => {
    const outcome = await httpProbe(target('/big'));
    expect(outcome.result).toBe('success');
    expect(outcome.output).toHaveLength(10 * 1024);
  });

  it('fails when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await httpProbe({ ...target('/'), url: `http://127.0.0.1:${closedPort}/` });
    expect(outcome.result).toBe('failure');
    expect(outcome.output).toContain('ECONNREFUSED');
  });

  it('answers unknown for a URL that cannot be built', async () => {
    expect((await httpProbe({ ...target('/'), url: 'http://[not-an-ip/' })).result).toBe('unknown');
  });
});
