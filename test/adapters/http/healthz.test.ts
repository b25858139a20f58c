import { describe, expect, it } from 'vitest';
import { buildHealthzApp, type HealthCheck } from '../../../src/adapters/http/healthz.js';

const checks = (syncloop: string | null): HealthCheck[] => [
  { name: 'ping', check: () => null },
  { name: 'log', check: () => null },
  { name: 'syncloop', check: () => syncloop },
];

describe('healthz', () => {
  it('answers ok when every check passes', async () => {
    const r = await buildHealthzApp(checks(null)).inject({ url: '/healthz' });
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe('ok');
  });

  it('answers 500 naming the failed check, and lists each with ?verbose', async () => {
    const app = buildHealthzApp(checks('syncLoop was last active 400s ago'));
    const r = await app.inject({ url: '/healthz' });
    expect(r.statusCode).toBe(500);
    expect(r.body).toContain('[-]syncloop failed: syncLoop was last active 400s ago');
    const v = await buildHealthzApp(checks(null)).inject({ url: '/healthz?verbose' });
    expect(v.body).toBe('[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n');
  });

  it('runs one check by name, and 404s an unknown one', async () => {
    const app = buildHealthzApp(checks('stale'));
    expect((await app.inject({ url: '/healthz/ping' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/healthz/syncloop' })).statusCode).toBe(500);
    expect((await app.inject({ url: '/healthz/nope' })).statusCode).toBe(404);
  });
});
