/**
 * The kubelet server's debugging handlers, switched by enableDebuggingHandlers as Go's NewServer
 * switches them (InstallDebuggingHandlers / InstallDebuggingDisabledHandlers).
 *
 * On: `/containerLogs`, `/runningpods/`, `/configz`, `/run`, and `/logs/` (itself switched by
 * enableSystemLogHandler, which Go honours only with the debugging handlers on), and `/exec`,
 * `/attach` and `/portForward`, proxied to the runtime's streaming server (streaming-routes.ts).
 * `/debug/pprof` (enableProfilingHandler) and `/debug/flags/v` are not served (404).
 *
 * Off: Go's list of debugging paths answers 405 `Debug endpoints are disabled.`; `/configz` is not
 * there at all (404). A path without its slash (`/run`) answers 405 too, where Go's mux first
 * redirects it to `/run/`.
 */
import type { Logger } from '../../../log.js';
import { runningPodList } from '../../../domain/kubelet-server/pod-list.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import { replyJson, replyText } from './reply.js';
import type { RouteHandler, Router } from './router.js';
import { registerContainerLogs, type ContainerLogLimits } from './container-logs-route.js';
import { registerRun } from './run-route.js';
import { registerStreamingRoutes } from './streaming-routes.js';
import { registerSystemLogs, type SystemLogsOptions } from './system-logs-route.js';

export interface DebuggingHandlerOptions {
  /** enableDebuggingHandlers. */
  enabled: boolean;
  /** enableSystemLogHandler and the directory `/logs/` serves; absent: off. */
  systemLogs?: SystemLogsOptions;
  logLimits?: Partial<ContainerLogLimits>;
  /** streamingConnectionIdleTimeout for /exec, /attach and /portForward, in ms; 0: never. */
  streamingIdleTimeoutMs: number;
  logger?: Logger;
}

/** Go's InstallDebuggingDisabledHandlers paths (each also below itself). */
const DEBUG_PATHS = ['/run', '/exec', '/attach', '/portForward', '/containerLogs', '/runningpods', '/debug/pprof', '/logs'];
function answerAll(router: Router, paths: readonly string[], status: number, body: string): void {
  const handler: RouteHandler = (_req, res) => replyText(res, status, `${body}\n`);
  for (const p of paths) {
    router.add('ALL', p, handler);
    router.add('ALL', `${p}/*`, handler);
  }
}

export function registerDebuggingHandlers(router: Router, view: KubeletView, opts: DebuggingHandlerOptions): void {
  if (!opts.enabled) {
    answerAll(router, DEBUG_PATHS, 405, 'Debug endpoints are disabled.');
    return;
  }
  registerContainerLogs(router, view, { followPollMs: 250, maxFollowMs: 4 * 3600_000, ...opts.logLimits });
  const running: RouteHandler = async (_req, res) => replyJson(res, runningPodList(await view.pods()));
  router.get('/runningpods/', running);
  router.get('/runningpods', running);
  router.get('/configz', async (_req, res) => replyJson(res, await view.configz()));
  registerRun(router, view, opts.logger);
  registerStreamingRoutes(router, view, { idleTimeoutMs: opts.streamingIdleTimeoutMs, logger: opts.logger });
  registerSystemLogs(router, opts.systemLogs ?? { enabled: false, dir: '' });
}
