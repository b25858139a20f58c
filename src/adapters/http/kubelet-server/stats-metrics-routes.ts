/**
 * `GET /metrics/resource` and `GET /metrics/cadvisor`: the stats summary (CPU and memory only, the
 * one read /stats/summary?only_cpu_and_memory=true shares) as Prometheus text, on the kubelet
 * server (authorized as `nodes/metrics`, like every `/metrics…` path) and the read-only port, as Go
 * registers them on both.
 *
 * A failed or refused stats read is no 500: it is logged and the scrape answers its error gauges
 * set to 1 (Go: `scrape_error 1`, cAdvisor: `container_scrape_error 1`), so a scraper keeps its
 * target up and sees why the series are missing.
 */
import type { Logger } from 'pino';
import { cadvisorMetricFamilies } from '../../../domain/kubelet-server/cadvisor-metrics.js';
import { containerIdentities } from '../../../domain/kubelet-server/container-identities.js';
import { PROMETHEUS_CONTENT_TYPE, renderExposition } from '../../../domain/kubelet-server/prometheus-text.js';
import { resourceMetricFamilies } from '../../../domain/kubelet-server/resource-metrics.js';
import type { Summary } from '../../../domain/stats/summary-types.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import { reply } from './reply.js';
import type { Router } from './router.js';

export function registerStatsMetrics(router: Router, view: KubeletView, now: () => number, logger?: Logger): void {
  const summaryOrNull = async (path: string): Promise<Summary | null> => {
    try {
      return await view.statsSummary(true);
    } catch (err) {
      logger?.error({ err, path }, 'Error getting summary for metrics endpoint');
      return null;
    }
  };

  router.get('/metrics/resource', async (_req, res) =>
    reply(res, 200, renderExposition(resourceMetricFamilies(await summaryOrNull('/metrics/resource'))), { type: PROMETHEUS_CONTENT_TYPE }));

  router.get('/metrics/cadvisor', async (_req, res) => {
    const [summary, pods, machine] = await Promise.all([summaryOrNull('/metrics/cadvisor'), view.pods(), view.machineInfo()]);
    const text = renderExposition(cadvisorMetricFamilies({ summary, identities: containerIdentities(pods), machine, nowMs: now() }));
    reply(res, 200, text, { type: PROMETHEUS_CONTENT_TYPE });
  });
}
