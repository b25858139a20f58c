/**
 * The HTTP servers the phases start, over fastify: the debug server (visualizer, /debug/*), healthz,
 * the kubelet server with webhook authn/authz through the API clients, and the read-only port.
 */
import type { LiveState } from '../actors/phases/live-state.js';
import { createApiReviewers } from '../actors/view/api-reviewers.js';
import type { KubeletView } from '../ports/kubelet-view.js';
import type { ActorDirectory } from '../actors/debug/actor-directory.js';
import type { JournalFeed } from '../adapters/debug-server/journal-feed.js';
import { startDebugServer } from '../adapters/debug-server/server.js';
import { startHealthz, type HealthCheck } from '../adapters/http/healthz.js';
import { startKubeletServer, startReadOnlyServer } from '../adapters/http/kubelet-server/server.js';
import type { DeferredJournalSink } from '../adapters/journal-file/deferred-sink.js';
import { machineGraphs } from '../machines/index.js';
import { actorLogger, type Logger } from '../log.js';
import type { Clock } from '../ports/clock.js';
import type { DebugServerStarter, HealthzStarter, ServerStarter } from '../ports/servers.js';
import { podsView, type SystemViews } from './system-views.js';

/** What `/logs/` serves, as Go's kubelet: the node's log directory. */
const SYSTEM_LOG_DIR = '/var/log';

/** The debug server is optional: a taken address is logged and retried in the background (issue 14). */
export function debugServerStarter(
  o: { directory: ActorDirectory; views: SystemViews; feed: JournalFeed; journal: DeferredJournalSink },
  logger: Logger,
): DebugServerStarter {
  return {
    start: (address) =>
      startDebugServer(address, {
        actors: () => o.directory.list(),
        pods: () => podsView(o.views.syncLoop()),
        visualizer: { mode: 'live', graphs: machineGraphs(), feed: o.feed },
        journal: () => ({ path: null, records: o.journal.records }),
      }, { logger }),
  };
}

export function healthzStarter(healthChecks: HealthCheck[]): HealthzStarter {
  return { start: (host, port) => startHealthz(host, port, healthChecks) };
}

export function kubeletServerStarter(o: { live: LiveState; view: KubeletView; healthChecks: HealthCheck[]; clock: Clock; logger: Logger }): ServerStarter {
  const { live, view, healthChecks, clock, logger } = o;
  return {
    startKubelet: ({ webhook, systemLogHandler, ...opts }) => {
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
        systemLogs: { enabled: systemLogHandler, dir: SYSTEM_LOG_DIR },
        logger: actorLogger(logger, 'kubeletServer', 'http'),
      });
    },
    startReadOnly: (opts) => startReadOnlyServer({ ...opts, view, healthChecks, logger: actorLogger(logger, 'readOnlyServer', 'http') }),
  };
}
