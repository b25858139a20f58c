import { afterEach, describe, expect, it } from 'vitest';
import { buildKubeletApp } from '../../../../src/adapters/http/kubelet-server/server.js';
import { KubeletError } from '../../../../src/domain/errors.js';
import { FakeKubeletView } from './fake-view.js';
import { serveApp, type ServedApp } from './served-app.js';

let app: ServedApp | undefined;
afterEach(async () => app?.close());

function serve(debuggingHandlers = true) {
  const view = new FakeKubeletView();
  app = serveApp(buildKubeletApp({ view, debuggingHandlers }));
  return { view, app };
}

describe('GET /stats/summary', () => {
  it('answers the summary as JSON, uint64 counters with every digit', async () => {
    const { view, app } = serve();
    view.summary = { node: { nodeName: 'n', startTime: '2024-01-01T00:00:00Z', cpu: { time: '2024-01-01T00:00:00Z', usageCoreNanoSeconds: 9007199254740993n } }, pods: [] };
    const res = await app.inject({ method: 'GET', url: '/stats/summary' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toContain('"usageCoreNanoSeconds":9007199254740993}');
    expect(view.calls).toEqual(['statsSummary false']);
  });

  it.each([['true', 'statsSummary true'], ['false', 'statsSummary false']])('passes only_cpu_and_memory=%s on', async (value, call) => {
    const { view, app } = serve();
    expect((await app.inject({ method: 'GET', url: `/stats/summary?only_cpu_and_memory=${value}` })).statusCode).toBe(200);
    expect(view.calls).toEqual([call]);
  });

  it.each([
    ['only_cpu_and_memory=yes', 'invalid only_cpu_and_memory "yes": must be true or false\n'],
    ['only_cpu_and_memory=true&only_cpu_and_memory=false', 'only_cpu_and_memory given 2 times; give it once, true or false\n'],
  ])('answers 400 naming the value for %s', async (query, body) => {
    const { view, app } = serve();
    const res = await app.inject({ method: 'GET', url: `/stats/summary?${query}` });
    expect([res.statusCode, res.body]).toEqual([400, body]);
    expect(view.calls).toEqual([]);
  });

  it('answers 500 "Internal Error: <what failed>" when the runtime fails, as Go', async () => {
    const { view, app } = serve();
    view.summary = new KubeletError('KLT_ERR_STATS_UNAVAILABLE', 'failed to list pod stats: runtime down');
    const res = await app.inject({ method: 'GET', url: '/stats/summary' });
    expect([res.statusCode, res.body]).toEqual([500, 'Internal Error: failed to list pod stats: runtime down\n']);
    // The server keeps serving.
    view.summary = { node: { nodeName: 'n', startTime: 't' }, pods: [] };
    expect((await app.inject({ method: 'GET', url: '/stats/summary' })).statusCode).toBe(200);
  });

  it('is served by POST too, and on the read-only server (debugging handlers off), as Go', async () => {
    const { app } = serve(false);
    expect((await app.inject({ method: 'GET', url: '/stats/summary' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/stats/summary' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/stats/other' })).statusCode).toBe(404);
  });
});
