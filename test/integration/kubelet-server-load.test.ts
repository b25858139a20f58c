/**
 * The kubelet server of the real binary under a crowd (#7), bounded in count: 10 pods on the
 * embedded runtime, 200 concurrent keep-alive HTTPS clients × 4 requests on /pods and /metrics.
 * Every answer must be a whole 200 (a PodList with the pods, Prometheus text that parses), the
 * kubelet still healthy afterwards, and the syncLoop's lag metric there and finite. No timing is
 * asserted here (this machine is shared and noisy): latency and lag belong to `bench/run.js http`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad } from '../../bench/http-load.js';
import { histogramFrom, parseSamples, scalar } from '../../bench/prometheus-samples.js';
import { sleeperPodManifest } from '../../bench/static-pod-fleet.js';
import { freePort, httpsGet, startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';

const PODS = 10;
const NODE = 'node-load';
const names = Array.from({ length: PODS }, (_, i) => `load-${i}`);
let kubelet: StaticPodKubelet;
let port = 0;

const podNames = (body: string): string[] => {
  const list = JSON.parse(body) as { kind: string; items: { metadata: { name: string }; status?: { phase?: string } }[] };
  if (list.kind !== 'PodList') throw new Error(`kind ${list.kind}`);
  return list.items.filter((p) => p.status?.phase === 'Running').map((p) => p.metadata.name).sort();
};
const expected = names.map((n) => `${n}-${NODE}`).sort();

beforeAll(async () => {
  port = await freePort();
  kubelet = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, serverPort: port, prefix: 'kts-load-' });
  for (const n of names) writeFileSync(join(kubelet.manifests, `${n}.json`), sleeperPodManifest(n));
  await until('every pod running', async () => podNames((await httpsGet(port, '/pods')).body).length === PODS, 50_000, kubelet.stderr);
}, 60_000);

afterAll(async () => {
  await kubelet?.dispose();
}, 60_000);

describe('the kubelet server under 200 concurrent clients (#7)', () => {
  it('answers every request on /pods and /metrics with a whole 200, then is still healthy', async () => {
    const load = await runLoad({
      port, paths: ['/pods', '/metrics'], clients: 200, requestsPerClient: 4,
      check: (path, body) => {
        if (path === '/pods') {
          const got = podNames(body);
          return JSON.stringify(got) === JSON.stringify(expected) ? null : `pods ${got.join(',')}`;
        }
        const running = scalar(parseSamples(body), 'kubelet_running_pods');
        return running === PODS ? null : `kubelet_running_pods ${running}`;
      },
    });
    expect(load.errorSamples).toEqual([]);
    expect(load.byPath['/pods']!.requests).toBe(400);
    expect(load.byPath['/metrics']!.requests).toBe(400);

    const healthz = await httpsGet(port, '/healthz');
    expect([healthz.status, healthz.body]).toEqual([200, 'ok']);
    // The first samples come with the PLEG's first timed relist and the event loop meter's first fold
    // (every 5 s), and a scrape may be a second old.
    const samples = await until('a syncLoop lag and an event loop delay sample', async () => {
      const s = parseSamples((await httpsGet(port, '/metrics')).body);
      return histogramFrom(s, 'kubelet_ts_sync_loop_iteration_lag_seconds').count > 0 && histogramFrom(s, 'kubelet_ts_event_loop_delay_seconds').count > 0 && s;
    }, 10_000);
    const lag = histogramFrom(samples, 'kubelet_ts_sync_loop_iteration_lag_seconds');
    expect(Number.isFinite(lag.sum)).toBe(true);
    expect(Number.isFinite(scalar(samples, 'kubelet_ts_sync_loop_iteration_lag_max_seconds'))).toBe(true);
    expect(histogramFrom(samples, 'kubelet_ts_event_loop_delay_seconds').count).toBeGreaterThan(0);
  }, 60_000);
});
