import { afterEach, describe, expect, it } from 'vitest';
import { healthzAnswer, startHealthz, type HealthCheck } from '../../../src/adapters/http/healthz.js';
import type { RunningServer } from '../../../src/adapters/http/listen.js';

const checks = (syncloop: string | null): HealthCheck[] => [
  { name: 'ping', check: () => null },
  { name: 'log', check: () => null },
  { name: 'syncloop', check: () => syncloop },
];

describe('healthzAnswer', () => {
  it('answers ok when every check passes', () => {
    expect(healthzAnswer(checks(null), '/healthz')).toEqual({ code: 200, body: 'ok' });
  });

  it('answers 500 naming the failed check, and lists each with ?verbose', () => {
    const failed = healthzAnswer(checks('syncLoop was last active 400s ago'), '/healthz');
    expect(failed?.code).toBe(500);
    expect(failed?.body).toContain('[-]syncloop failed: syncLoop was last active 400s ago');
    expect(healthzAnswer(checks(null), '/healthz?verbose')?.body).toBe('[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n');
  });

  it('runs one check by name, 404s an unknown one, and is no answer for another path', () => {
    expect(healthzAnswer(checks('stale'), '/healthz/ping')?.code).toBe(200);
    expect(healthzAnswer(checks('stale'), '/healthz/syncloop')?.code).toBe(500);
    expect(healthzAnswer(checks('stale'), '/healthz/nope')).toEqual({ code: 404, body: '404 page not found\n' });
    expect(healthzAnswer(checks(null), '/metrics')).toBeNull();
  });
});

describe('the healthz server', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves the answers over HTTP on loopback, 404 elsewhere, and closes with a client still connected', async () => {
    let problem: string | null = null;
    server = await startHealthz('127.0.0.1', 0, [{ name: 'syncloop', check: () => problem }]);
    const base = `http://${server.address}`;
    const ok = await fetch(`${base}/healthz`);
    expect([ok.status, ok.headers.get('content-type'), await ok.text()]).toEqual([200, 'text/plain; charset=utf-8', 'ok']);
    problem = 'the syncLoop is not running';
    const failed = await fetch(`${base}/healthz/syncloop?verbose`);
    expect([failed.status, await failed.text()]).toEqual([500, '[-]syncloop failed: the syncLoop is not running\nhealthz check failed\n']);
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });

  it('refuses an address in use with KLT_ERR_HOST_IO naming it', async () => {
    server = await startHealthz('127.0.0.1', 0, []);
    const port = Number(server.address.split(':')[1]);
    await expect(startHealthz('127.0.0.1', port, [])).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO', message: expect.stringContaining(`cannot listen on healthz address 127.0.0.1:${port}`) });
  });
});
