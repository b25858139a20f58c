import { afterEach, describe, expect, it } from 'vitest';
import { SummaryProvider } from '../../../../src/actors/stats/summary-provider.js';
import { buildKubeletApp } from '../../../../src/adapters/http/kubelet-server/server.js';
import { KubeletError } from '../../../../src/domain/errors.js';
import { FakeCri } from '../../../fakes/fake-cri.js';
import { FakeHostStats } from '../../../fakes/fake-host-stats.js';
import { FakeKubeletView } from './fake-view.js';
import { serveApp, type ServedApp } from './served-app.js';

let app: ServedApp | undefined;
afterEach(async () => app?.close());

const LIST_AND_STATS = ['listPodSandbox', 'listContainers', 'listContainerStats', 'imageFsInfo'];
/**
 * The provider's clock stands still: the 200 requests share one read and its answer however long a
 * loaded machine takes to serve them (the test took 3.1 s there, past the answer's 1 s of reuse).
 */
const STILL_CLOCK_MS = 0;

describe('GET /stats/summary under load (#14)', () => {
  it('answers 200 concurrent requests with 200 and one set of CRI list/stats calls', async () => {
    const cri = new FakeCri();
    const provider = new SummaryProvider({ cri: () => cri, host: new FakeHostStats(), nodeName: () => 'node-1', rootDir: () => '/var/lib/kubelet', podLogsDir: () => '/var/log/pods' }, { now: () => STILL_CLOCK_MS });
    const view = new FakeKubeletView();
    view.statsSummary = (only: boolean) => provider.get(only);
    app = serveApp(buildKubeletApp({ view, debuggingHandlers: true }));
    const answers = await Promise.all(Array.from({ length: 200 }, () => app!.inject({ method: 'GET', url: '/stats/summary' })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 200 }, () => 200));
    // The turn budget may spread the requests over a few turns; the first answer is reused meanwhile.
    expect(LIST_AND_STATS.map((c) => cri.calls.filter((x) => x === c).length)).toEqual([1, 1, 1, 1]);
  });

  it('renders a summary that many requests share once', async () => {
    const view = new FakeKubeletView();
    let renders = 0;
    const node = { nodeName: 'n', startTime: 't', toJSON: () => (renders += 1, { nodeName: 'n', startTime: 't' }) };
    view.summary = { node, pods: [] };
    app = serveApp(buildKubeletApp({ view, debuggingHandlers: true }));
    const answers = await Promise.all(Array.from({ length: 50 }, () => app!.inject({ method: 'GET', url: '/stats/summary' })));
    expect(new Set(answers.map((a) => a.body))).toEqual(new Set(['{"node":{"nodeName":"n","startTime":"t"},"pods":[]}']));
    expect(renders).toBe(1);
  });

  it('answers 503 with Retry-After when too many requests wait for the summary', async () => {
    const view = new FakeKubeletView();
    view.summary = new KubeletError('KLT_ERR_STATS_BUSY', '512 requests already wait for the stats summary', { retryable: true });
    app = serveApp(buildKubeletApp({ view, debuggingHandlers: true }));
    const res = await app.inject({ method: 'GET', url: '/stats/summary' });
    expect([res.statusCode, res.headers['retry-after'], res.body]).toEqual([503, '1', '512 requests already wait for the stats summary\n']);
  });
});
