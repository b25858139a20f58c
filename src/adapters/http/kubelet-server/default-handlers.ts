/**
 * The handlers both servers serve (Go's InstallAuthNotRequiredHandlers): `/pods`, `/metrics`,
 * `/metrics/probes`, `/metrics/resource` and `/metrics/cadvisor` (stats-metrics-routes.ts),
 * `/stats/summary` (stats-summary-route.ts) and `/healthz`, `/healthz/<check>` (the healthz
 * server's checks and answers).
 */
import type { Logger } from 'pino';
import { kubeletMetricFamilies, type KubeletMetricsSnapshot } from '../../../domain/kubelet-server/kubelet-metrics.js';
import { podList } from '../../../domain/kubelet-server/pod-list.js';
import { probeMetricFamilies } from '../../../domain/kubelet-server/probe-metrics.js';
import { PROMETHEUS_CONTENT_TYPE, renderExposition } from '../../../domain/kubelet-server/prometheus-text.js';
import type { Pod } from '../../../domain/pod/types.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import { HEALTHZ_CONTENT_TYPE, HEALTHZ_NOT_FOUND, healthzAnswer, type HealthCheck } from '../healthz.js';
import { renderedPerValue } from './rendered-per-value.js';
import { reply, replyJson } from './reply.js';
import type { RouteHandler, Router } from './router.js';
import { registerStatsMetrics } from './stats-metrics-routes.js';
import { registerStatsSummary } from './stats-summary-route.js';

export interface DefaultHandlerOptions {
  healthChecks: readonly HealthCheck[];
  /** Epoch ms, for /metrics/cadvisor's container_last_seen. */
  now: () => number;
  logger?: Logger;
}

export function registerDefaultHandlers(router: Router, view: KubeletView, opts: DefaultHandlerOptions): void {
  // Under load, serialising the PodList per request is the server's largest cost and holds the
  // event loop; the view answers the same array until a pod changes, so the body is rendered once
  // per change. Go serialises per request.
  const podsBody = renderedPerValue((pods: readonly Pod[]) => Buffer.from(JSON.stringify(podList(pods))));
  router.get('/pods', async (_req, res) => replyJson(res, podsBody(await view.pods())));
  const metricsBody = renderedPerValue((m: KubeletMetricsSnapshot) => Buffer.from(renderExposition(kubeletMetricFamilies(m))));
  router.get('/metrics', async (_req, res) => reply(res, 200, metricsBody(await view.metrics()), { type: PROMETHEUS_CONTENT_TYPE }));
  registerStatsSummary(router, view, opts.logger);
  registerStatsMetrics(router, view, opts.now, opts.logger);
  router.get('/metrics/probes', async (_req, res) =>
    reply(res, 200, renderExposition(probeMetricFamilies(await view.probeMetrics())), { type: PROMETHEUS_CONTENT_TYPE }));

  const healthz: RouteHandler = (req, res) => {
    const { code, body } = healthzAnswer(opts.healthChecks, req.raw.url ?? '/') ?? HEALTHZ_NOT_FOUND;
    reply(res, code, body, { type: HEALTHZ_CONTENT_TYPE });
  };
  router.get('/healthz', healthz);
  router.get('/healthz/:check', healthz);
}
