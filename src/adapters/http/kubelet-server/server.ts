/**
 * The kubelet server (port 10250, TLS, authenticated and authorized) and the read-only server
 * (readOnlyPort, plain HTTP, no auth), as Go's pkg/kubelet/server builds them.
 *
 * Both serve `/pods`, `/metrics`, `/metrics/probes`, `/metrics/resource`, `/metrics/cadvisor`
 * (stats-metrics-routes.ts), `/stats/summary` and `/healthz` (delegated to the healthz checks).
 * The kubelet server with debugging handlers on (enableDebuggingHandlers, default true) adds `/containerLogs`, `/runningpods/`, `/configz`, `/run`, `/logs/`,
 * and `/exec`, `/attach` and `/portForward` proxied to the runtime's streaming server (debugging-handlers.ts);
 * the read-only server, like Go's, has its debugging handlers off and answers their paths with 405
 * `Debug endpoints are disabled.` (`/configz` is not there at all).
 * Not served yet (Go serves them): /spec, /checkpoint,
 * /debug/pprof, /debug/flags/v, /statusz, /flagz. Upgrade requests (exec, attach, port-forward)
 * take the same routes and hooks as the rest (upgrade-requests.ts).
 *
 * Under load, request handling is spread over event-loop turns (turn-budget.ts) and the PodList
 * and the metrics text are rendered once per view answer, not per request.
 *
 * Bounds: 64 KiB of headers (Go allows 1 MiB), 64 KiB of body, a whole request must arrive within
 * 60 s, idle keep-alive connections close after 90 s (Go's IdleTimeout), a connection silent both
 * ways for 5 minutes is closed; a log follow lasts at most 4 h (Go's write timeout).
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { KubeletError } from '../../../domain/errors.js';
import { listenAndReport, type RunningServer } from '../listen.js';
import { kubeletMetricFamilies, type KubeletMetricsSnapshot } from '../../../domain/kubelet-server/kubelet-metrics.js';
import { podList } from '../../../domain/kubelet-server/pod-list.js';
import { probeMetricFamilies } from '../../../domain/kubelet-server/probe-metrics.js';
import { PROMETHEUS_CONTENT_TYPE, renderExposition } from '../../../domain/kubelet-server/prometheus-text.js';
import { nodeRequestAttributes } from '../../../domain/kubelet-server/request-attributes.js';
import type { Pod } from '../../../domain/pod/types.js';
import type { KubeletView, SubjectAccessReviewer, TokenReviewer } from '../../../ports/kubelet-view.js';
import { HEALTHZ_CONTENT_TYPE, HEALTHZ_NOT_FOUND, healthzAnswer, type HealthCheck } from '../healthz.js';
import { listenOrRetry } from '../listen-or-retry.js';
import { createClientCertificateVerifier, loadCertificateBundle, type ClientCertificateVerifier } from '../tls/client-certificates.js';
import { buildServerTlsOptions, type KubeletTlsConfig } from '../tls/server-tls-options.js';
import type { ServingCertificates, ServingPair } from '../../../ports/servers.js';
import { authenticateRequest } from './authenticate.js';
import { authorizeRequest, type AuthorizationMode } from './authorize.js';
import type { ContainerLogLimits } from './container-logs-route.js';
import { registerDebuggingHandlers } from './debugging-handlers.js';
import { routeUpgradeRequests } from './upgrade-requests.js';
import { renderedPerValue } from './rendered-per-value.js';
import type { SystemLogsOptions } from './system-logs-route.js';
import { registerStatsMetrics } from './stats-metrics-routes.js';
import { registerStatsSummary } from './stats-summary-route.js';
import { createTurnBudget } from './turn-budget.js';

export interface KubeletServerAuth {
  anonymous: boolean;
  clientCAFile?: string;
  authorizationMode: AuthorizationMode;
  tokenReviewer?: TokenReviewer;
  accessReviewer?: SubjectAccessReviewer;
  /** The node's name in authorization attributes; defaults to the TLS hostname. */
  nodeName?: string;
  /** KubeletFineGrainedAuthz (default true, as Go since 1.33). */
  fineGrainedAuthz?: boolean;
}

export type { RunningServer } from '../listen.js';

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

const BOUNDS: Partial<FastifyServerOptions> = {
  bodyLimit: 64 * 1024,
  requestTimeout: 60_000,
  keepAliveTimeout: 90_000,
  connectionTimeout: 5 * 60_000,
};
const MAX_HEADER_BYTES = 64 * 1024;
/** Go's default streamingConnectionIdleTimeout. */
const DEFAULT_STREAMING_IDLE_TIMEOUT_MS = 4 * 3600_000;
/**
 * Request handling per event-loop turn before the rest waits a turn: a fifth of the 100 ms the
 * syncLoop's timed inputs may be late under load (the `http` bench's PASS line).
 */
const TURN_BUDGET_MS = 20;

/** The URL's path, percent-decoded as Go's r.URL.Path is (left raw when it does not decode). */
function decodedPath(url: string): string {
  const raw = url.split('?')[0] ?? url;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The routes and hooks, without a socket: tests drive it with `inject()`, start* add the listener. */
export function buildKubeletApp(opts: KubeletAppOptions, serverOptions: Partial<FastifyServerOptions> = {}): FastifyInstance {
  const app = Fastify({
    logger: false,
    ...BOUNDS,
    // A URL the router cannot decode (`%zz`): plain text like every other error of this server.
    frameworkErrors: (err: Error, _req: unknown, reply: FastifyReply) => reply.code(400).type('text/plain; charset=utf-8').send(`${err.message}\n`),
    ...serverOptions,
    // Fastify's overloads pick the instance type from the options' literal server kind (http, https,
    // http2); options built from spreads match none of them, so the default instance type is named.
  } as FastifyServerOptions) as unknown as FastifyInstance; // cast: no overload fits spread options, see above
  const { view, auth, logger } = opts;

  // First of all hooks: a request that would hold the event loop past the turn's budget waits for
  // a later turn, so the kubelet's own timers are not stuck behind a crowd of clients.
  const turns = createTurnBudget(TURN_BUDGET_MS);
  app.addHook('onRequest', (_req, _reply, done) => {
    const wait = turns.enter();
    if (wait) void wait.then(() => done());
    else done();
  });

  if (auth) {
    app.addHook('onRequest', async (req, reply) => {
      const who = await authenticateRequest(req.raw, { anonymous: auth.anonymous, clientCertificates: opts.clientCertificates?.verdictOf, tokenReviewer: auth.tokenReviewer });
      if (!who.ok) {
        logger?.debug({ reason: who.reason, path: req.url }, 'Unauthorized request to kubelet server');
        return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized');
      }
      const path = decodedPath(req.url);
      const attrs = nodeRequestAttributes(who.user, req.method, path, auth.nodeName, auth.fineGrainedAuthz ?? true);
      const decision = await authorizeRequest(auth.authorizationMode, auth.accessReviewer, attrs);
      if (!decision.allowed) {
        if (decision.status === 500) logger?.error({ reason: decision.reason, user: who.user.name }, 'Authorization error');
        else logger?.debug({ reason: decision.reason, user: who.user.name, path }, 'Forbidden');
        return reply.code(decision.status).type('text/plain; charset=utf-8').send(decision.body);
      }
      return undefined;
    });
  }

  app.setNotFoundHandler((_req, reply) => reply.code(404).type('text/plain; charset=utf-8').send('404 page not found\n'));
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) logger?.error({ err }, 'Kubelet server request failed');
    return reply.code(status).type('text/plain; charset=utf-8').send(status === 500 ? 'Internal Server Error\n' : `${err.message}\n`);
  });

  // Under load, serialising the PodList per request is the server's largest cost and holds the
  // event loop; the view answers the same array until a pod changes, so the body is rendered once
  // per change. Go serialises per request.
  const podsBody = renderedPerValue((pods: readonly Pod[]) => Buffer.from(JSON.stringify(podList(pods))));
  app.get('/pods', async (_req, reply) => reply.type('application/json').send(podsBody(await view.pods())));
  const metricsBody = renderedPerValue((m: KubeletMetricsSnapshot) => Buffer.from(renderExposition(kubeletMetricFamilies(m))));
  app.get('/metrics', async (_req, reply) => reply.type(PROMETHEUS_CONTENT_TYPE).send(metricsBody(await view.metrics())));
  registerStatsSummary(app, view, logger);
  registerStatsMetrics(app, view, opts.now ?? Date.now, logger);
  app.get('/metrics/probes', async (_req, reply) => reply.type(PROMETHEUS_CONTENT_TYPE).send(renderExposition(probeMetricFamilies(await view.probeMetrics()))));

  const checks = opts.healthChecks ?? [];
  const healthz = async (req: FastifyRequest, reply: FastifyReply) => {
    const { code, body } = healthzAnswer(checks, req.url) ?? HEALTHZ_NOT_FOUND;
    return reply.code(code).type(HEALTHZ_CONTENT_TYPE).send(body);
  };
  app.get('/healthz', healthz);
  app.get('/healthz/:check', healthz);

  registerDebuggingHandlers(app, view, {
    enabled: opts.debuggingHandlers, systemLogs: opts.systemLogs, logLimits: opts.logLimits, logger,
    streamingIdleTimeoutMs: opts.streamingIdleTimeoutMs ?? DEFAULT_STREAMING_IDLE_TIMEOUT_MS,
  });
  routeUpgradeRequests(app);
  return app;
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
  const app = buildKubeletApp(
    {
      view: opts.view,
      healthChecks: opts.healthChecks,
      auth: { ...opts.auth, nodeName: opts.auth.nodeName ?? opts.tls.hostname },
      ...(clientCertificates ? { clientCertificates } : {}),
      debuggingHandlers: opts.debuggingHandlers ?? true,
      ...(opts.systemLogs ? { systemLogs: opts.systemLogs } : {}),
      logger: opts.logger,
      logLimits: opts.logLimits,
      ...(opts.streamingIdleTimeoutMs !== undefined ? { streamingIdleTimeoutMs: opts.streamingIdleTimeoutMs } : {}),
    },
    { https: { ...tls, maxHeaderSize: MAX_HEADER_BYTES } } as Partial<FastifyServerOptions>,
  );
  // Each connection's certificate is verified as it is established (client-certificates.ts says
  // why it must be then), once for all the requests it carries.
  if (clientCertificates) app.server.on('secureConnection', (socket: TLSSocket) => clientCertificates.admit(socket));
  const server = await listenAndReport(app, { host: opts.address, port: opts.port, what: 'the kubelet server address', retryable: true });
  opts.logger.info({ address: server.address }, 'Starting to listen');
  if (!opts.servingCertificates) return server;
  // New connections get the new certificate; open ones keep the one they were made with (Go: GetCertificate).
  const tlsServer = app.server;
  if (!(tlsServer instanceof TlsServer)) throw new KubeletError('KLT_ERR_CONFIG_INVALID', 'serving certificates were given to a kubelet server without TLS');
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
  const app = buildKubeletApp(
    { view: opts.view, healthChecks: opts.healthChecks, debuggingHandlers: false, logger: opts.logger },
    { http: { maxHeaderSize: MAX_HEADER_BYTES } } as Partial<FastifyServerOptions>,
  );
  // Optional, like the debug server: a taken port is logged and retried, start-up goes on.
  const server = await listenOrRetry(app, opts.address, opts.port, { what: 'read-only server', logger: opts.logger });
  if (server.listening) opts.logger?.info({ address: server.address }, 'Starting to listen read-only');
  return server;
}
