/**
 * The kubelet server (port 10250, TLS, authenticated and authorized) and the read-only server
 * (readOnlyPort, plain HTTP, no auth), as Go's pkg/kubelet/server builds them.
 *
 * Both serve `/pods`, `/metrics`, `/metrics/probes`, `/metrics/resource`, `/metrics/cadvisor`
 * (stats-metrics-routes.ts), `/stats/summary` and `/healthz` (default-handlers.ts).
 * The kubelet server with debugging handlers on (enableDebuggingHandlers, default true) adds `/containerLogs`, `/runningpods/`, `/configz`, `/run`, `/logs/`,
 * and `/exec`, `/attach` and `/portForward` proxied to the runtime's streaming server (debugging-handlers.ts);
 * the read-only server, like Go's, has its debugging handlers off and answers their paths with 405
 * `Debug endpoints are disabled.` (`/configz` is not there at all).
 * Not served yet (Go serves them): /spec, /checkpoint,
 * /debug/pprof, /debug/flags/v, /statusz, /flagz. Upgrade requests (exec, attach, port-forward)
 * take the same pipeline and routes as the rest (upgrade-requests.ts, request-pipeline.ts).
 *
 * Under load, request handling is spread over event-loop turns (turn-budget.ts) and the PodList
 * and the metrics text are rendered once per view answer, not per request.
 *
 * Bounds: 64 KiB of headers, a whole request within 60 s, idle keep-alive connections closed after
 * 90 s, a connection silent both ways for 5 minutes closed (http-server.ts); 64 KiB of body
 * (request-pipeline.ts); a log follow lasts at most 4 h (Go's write timeout).
 *
 * Served by node:http and node:https with a routing table of our own (router.ts), not a web
 * framework: the kubelet's memory at idle is compared with Go's, and loading a framework costs
 * more than this server's own code.
 */
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { KubeletError } from '../../../domain/errors.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import type { ServingCertificates, ServingPair } from '../../../ports/servers.js';
import type { HealthCheck } from '../healthz.js';
import { listenHttpServer, type RunningServer } from '../listen.js';
import { listenOrRetry } from '../listen-or-retry.js';
import { createClientCertificateVerifier, loadCertificateBundle, type ClientCertificateVerifier } from '../tls/client-certificates.js';
import { buildServerTlsOptions, type KubeletTlsConfig } from '../tls/server-tls-options.js';
import { createAdmission, type KubeletServerAuth } from './admission.js';
import type { ContainerLogLimits } from './container-logs-route.js';
import { registerDebuggingHandlers } from './debugging-handlers.js';
import { registerDefaultHandlers } from './default-handlers.js';
import { kubeletHttpServer } from './http-server.js';
import { requestPipeline, type RequestHandler } from './request-pipeline.js';
import { createRouter } from './router.js';
import type { SystemLogsOptions } from './system-logs-route.js';
import { createTurnBudget } from './turn-budget.js';

export type { KubeletServerAuth } from './admission.js';
export type { RunningServer } from '../listen.js';
export { kubeletHttpServer } from './http-server.js';

export interface KubeletAppOptions {
  view: KubeletView;
  healthChecks?: HealthCheck[];
  /** Absent: no authentication or authorization (the read-only server). */
  auth?: KubeletServerAuth & { nodeName: string };
  /** Verdicts on the connections' client certificates (with clientCAFile); absent: none considered. */
  clientCertificates?: ClientCertificateVerifier;
  debuggingHandlers: boolean;
  /** `/logs/` (enableSystemLogHandler, served only with the debugging handlers); absent: off. */
  systemLogs?: SystemLogsOptions;
  logger?: Logger;
  logLimits?: Partial<ContainerLogLimits>;
  /** streamingConnectionIdleTimeout in ms (0: never); defaults to Go's 4 h. */
  streamingIdleTimeoutMs?: number;
  /** Epoch ms, for /metrics/cadvisor's container_last_seen; defaults to Date.now. */
  now?: () => number;
}

const BODY_LIMIT_BYTES = 64 * 1024;
/** Go's default streamingConnectionIdleTimeout. */
const DEFAULT_STREAMING_IDLE_TIMEOUT_MS = 4 * 3600_000;
/**
 * Request handling per event-loop turn before the rest waits a turn: a fifth of the 100 ms the
 * syncLoop's timed inputs may be late under load (the `http` bench's PASS line).
 */
const TURN_BUDGET_MS = 20;

/** The routes and the request pipeline, without a socket: kubeletHttpServer serves it. */
export function buildKubeletApp(opts: KubeletAppOptions): RequestHandler {
  const { view, auth, logger } = opts;
  const router = createRouter();
  registerDefaultHandlers(router, view, { healthChecks: opts.healthChecks ?? [], now: opts.now ?? Date.now, logger });
  registerDebuggingHandlers(router, view, {
    enabled: opts.debuggingHandlers, systemLogs: opts.systemLogs, logLimits: opts.logLimits, logger,
    streamingIdleTimeoutMs: opts.streamingIdleTimeoutMs ?? DEFAULT_STREAMING_IDLE_TIMEOUT_MS,
  });
  return requestPipeline({
    router,
    turns: createTurnBudget(TURN_BUDGET_MS),
    ...(auth ? { admit: createAdmission(auth, opts.clientCertificates, logger) } : {}),
    bodyLimit: BODY_LIMIT_BYTES,
    logger,
  });
}

export interface KubeletServerOptions {
  address: string;
  port: number;
  tls: KubeletTlsConfig;
  auth: KubeletServerAuth;
  view: KubeletView;
  healthChecks?: HealthCheck[];
  /** enableDebuggingHandlers (default true). */
  debuggingHandlers?: boolean;
  /** enableSystemLogHandler and the directory `/logs/` serves (/var/log in production); absent: off. */
  systemLogs?: SystemLogsOptions;
  logger: Logger;
  /** Epoch seconds for a generated certificate's CN; defaults to now. */
  nowSeconds?: number;
  /** serverTLSBootstrap: serve its current pair (the self-signed one until there is one) and swap to each new pair in place. */
  servingCertificates?: ServingCertificates;
  logLimits?: Partial<ContainerLogLimits>;
  /** streamingConnectionIdleTimeout in ms (0: never); defaults to Go's 4 h. */
  streamingIdleTimeoutMs?: number;
}

/** The kubelet server on address:port over TLS. Refuses to start on a configuration Go refuses. */
export async function startKubeletServer(opts: KubeletServerOptions): Promise<RunningServer> {
  if (opts.auth.authorizationMode === 'Webhook' && !opts.auth.accessReviewer) {
    throw new KubeletError('KLT_ERR_AUTH_CONFIG', 'no client provided, cannot use webhook authorization');
  }
  const built = await buildServerTlsOptions(opts.tls, opts.auth.clientCAFile, opts.nowSeconds ?? Math.floor(Date.now() / 1000));
  const withPair = (pair: ServingPair | null | undefined) => (pair ? { ...built, cert: pair.certificatePem, key: pair.keyPem } : built);
  const tls = withPair(opts.servingCertificates?.current);
  const clientCertificates = opts.auth.clientCAFile
    ? createClientCertificateVerifier(await loadCertificateBundle(opts.auth.clientCAFile, 'clientCAFile'))
    : undefined;
  const app = buildKubeletApp({
    view: opts.view,
    healthChecks: opts.healthChecks,
    auth: { ...opts.auth, nodeName: opts.auth.nodeName ?? opts.tls.hostname },
    ...(clientCertificates ? { clientCertificates } : {}),
    debuggingHandlers: opts.debuggingHandlers ?? true,
    ...(opts.systemLogs ? { systemLogs: opts.systemLogs } : {}),
    logger: opts.logger,
    logLimits: opts.logLimits,
    ...(opts.streamingIdleTimeoutMs !== undefined ? { streamingIdleTimeoutMs: opts.streamingIdleTimeoutMs } : {}),
  });
  const tlsServer = kubeletHttpServer(app, { tls });
  // Each connection's certificate is verified as it is established (client-certificates.ts says
  // why it must be then), once for all the requests it carries.
  if (clientCertificates) tlsServer.on('secureConnection', (socket: TLSSocket) => clientCertificates.admit(socket));
  const server = await listenHttpServer(tlsServer, { host: opts.address, port: opts.port, what: 'the kubelet server address', retryable: true });
  opts.logger.info({ address: server.address }, 'Starting to listen');
  if (!opts.servingCertificates) return server;
  // New connections get the new certificate; open ones keep the one they were made with (Go: GetCertificate).
  const unsubscribe = opts.servingCertificates.subscribe((pair) => {
    tlsServer.setSecureContext(withPair(pair));
    opts.logger.info({}, 'Serving certificate replaced');
  });
  return { address: server.address, close: async () => { unsubscribe(); await server.close(); } };
}

/**
 * The read-only server: plain HTTP, no authentication, debugging handlers off (as Go's). Where we
 * differ: Go exits when it cannot bind readOnlyPort; this port is optional, so we log and retry.
 */
export async function startReadOnlyServer(opts: {
  address: string;
  port: number;
  view: KubeletView;
  healthChecks?: HealthCheck[];
  logger?: Logger;
}): Promise<RunningServer> {
  const app = buildKubeletApp({ view: opts.view, healthChecks: opts.healthChecks, debuggingHandlers: false, logger: opts.logger });
  // Optional, like the debug server: a taken port is logged and retried, start-up goes on.
  const server = await listenOrRetry(kubeletHttpServer(app), opts.address, opts.port, { what: 'read-only server', logger: opts.logger });
  if (server.listening) opts.logger?.info({ address: server.address }, 'Starting to listen read-only');
  return server;
}
