/**
 * The servers the phases start: the debug server (visualizer, /debug/*; on fastify), healthz,
 * the kubelet server with webhook authn/authz through the API clients, and the read-only port (these
 * three on node:http / node:https); the pod resources API (gRPC on a unix socket).
 *
 * Each server's modules (its routes, fastify for the debug server, the visualizer) are loaded when
 * that server is started: a kubelet that runs without one does not load it at start-up, as a Go
 * kubelet does not start it.
 */
import type { LiveState } from '../actors/phases/live-state.js';
import { createApiReviewers } from '../actors/view/api-reviewers.js';
import type { KubeletView } from '../ports/kubelet-view.js';
import type { ActorDirectory } from '../actors/debug/actor-directory.js';
import { mappedFeed, type JournalFeed } from '../adapters/debug-server/journal-feed.js';
import type { HealthCheck } from '../adapters/http/healthz.js';
import type { DeferredJournalSink } from '../adapters/journal-file/deferred-sink.js';
import { redactEnvValues } from '../domain/journal/redact-env-values.js';
import { machineGraphs } from '../machines/index.js';
import { actorLogger, type Logger } from '../log.js';
import type { Clock } from '../ports/clock.js';
import type { DebugServerStarter, HealthzStarter, ServerStarter, ServingCertificates } from '../ports/servers.js';
import type { PodResourcesServerStarter, PodResourcesSource } from '../ports/pod-resources.js';
import type { PodResourcesRequests } from '../domain/pod-resources/request-metrics.js';
import { podsView, type SystemViews } from './system-views.js';

/** What `/logs/` serves, as Go's kubelet: the node's log directory. */
const SYSTEM_LOG_DIR = '/var/log';

/**
 * The debug server is optional: a taken address is logged and retried in the background, as a taken
 * port must not stop a kubelet that runs pods without it.
 */
export function debugServerStarter(
  o: { directory: ActorDirectory; views: SystemViews; feed: JournalFeed; dropFeed: () => void; journal: DeferredJournalSink },
  logger: Logger,
  /** The run's event log file once it is open (command.dependencies), for the whole history `explain` reads. */
  journalPath: () => string | null,
): DebugServerStarter {
  return {
    start: async (address) => {
      const [{ startDebugServer }, { liveExplainer }] = await Promise.all([
        import('../adapters/debug-server/server.js'), import('../adapters/debug-server/journal-history.js'),
      ]);
      // Any local user can ask: the pods' literal env values stay in the journal file (owner only).
      const feed = mappedFeed(o.feed, redactEnvValues);
      return startDebugServer(address, {
        actors: () => o.directory.list(),
        pods: () => podsView(o.views.syncLoop()),
        visualizer: { mode: 'live', graphs: machineGraphs(), feed },
        explain: liveExplainer({ path: journalPath, flush: () => o.journal.flush(), kept: feed }),
        journal: () => ({ path: journalPath(), records: o.journal.records }),
      }, { logger });
    },
    off: o.dropFeed,
  };
}

export function healthzStarter(healthChecks: HealthCheck[]): HealthzStarter {
  return { start: async (host, port) => (await import('../adapters/http/healthz.js')).startHealthz(host, port, healthChecks) };
}

export function kubeletServerStarter(o: { live: LiveState; view: KubeletView; healthChecks: HealthCheck[]; clock: Clock; logger: Logger; servingCertificates: ServingCertificates }): ServerStarter {
  const { live, view, healthChecks, clock, logger } = o;
  return {
    startKubelet: async ({ webhook, systemLogHandler, serverTLSBootstrap, ...opts }) => {
      const { startKubeletServer } = await import('../adapters/http/kubelet-server/server.js');
      const api = live.api.peek();
      const reviewers = webhook && api
        ? createApiReviewers(api.main, clock, { tokenMs: webhook.tokenTtlMs, authorizedMs: webhook.authorizedTtlMs, unauthorizedMs: webhook.unauthorizedTtlMs })
        : null;
      const auth = {
        ...opts.auth,
        ...(reviewers && webhook?.authentication ? { tokenReviewer: reviewers.tokenReviewer } : {}),
        ...(reviewers && webhook?.authorization ? { accessReviewer: reviewers.accessReviewer } : {}),
      };
      return startKubeletServer({
        ...opts, auth, view, healthChecks,
        ...(serverTLSBootstrap ? { servingCertificates: o.servingCertificates } : {}),
        systemLogs: { enabled: systemLogHandler, dir: SYSTEM_LOG_DIR },
        logger: actorLogger(logger, 'kubeletServer', 'http'),
      });
    },
    startReadOnly: async (opts) =>
      (await import('../adapters/http/kubelet-server/server.js')).startReadOnlyServer({ ...opts, view, healthChecks, logger: actorLogger(logger, 'readOnlyServer', 'http') }),
  };
}

/** The pod resources API on its socket, answering from `source` and counting its calls in `requests`. */
export function podResourcesStarter(o: { source: PodResourcesSource; requests: PodResourcesRequests; clock: Clock; logger: Logger }): PodResourcesServerStarter {
  return {
    start: async (opts) => (await import('../adapters/pod-resources/server.js')).startPodResourcesServer({
      ...opts, source: o.source, requests: o.requests, clock: o.clock, logger: actorLogger(o.logger, 'podResourcesServer', 'grpc'),
    }),
  };
}
