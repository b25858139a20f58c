/**
 * The test API server: an in-process, in-memory Kubernetes API server on 127.0.0.1 over plain
 * HTTP, real enough that @kubernetes/client-node cannot tell (see the tests).
 *
 * With `tls: true` it serves HTTPS with a throw-away CA (pki.ts) and also accepts client
 * certificates signed by that CA (user = CN, groups = O), as the API server's x509 authenticator.
 *
 * It is built on node:http rather than fastify (issue 6 suggested fastify) because the
 * refused-connections fault stops listening and listens again on the same port with the same
 * state, and watches need the raw response; fastify cannot listen again after close().
 *
 * Like a cluster, every namespace holds a `kube-root-ca.crt` ConfigMap and a `default`
 * ServiceAccount (namespace-defaults.ts; each can be turned off), and service account tokens are
 * RS256 JWTs the test can verify (`tokens`, service-account-tokens.ts).
 *
 * `pods/{name}/log` is proxied to the pod's kubelet over HTTPS with the API server's own client
 * certificate (pod-log-proxy.ts, kubelet-client.ts), streamed as a real API server streams it;
 * `pods/{name}/exec`, `/attach`, `/portforward` and `nodes/{name}/proxy/…` likewise, upgrades
 * (SPDY, WebSocket) passed through (pod-stream-proxy.ts).
 *
 * Per request, in order: record it, apply the injected delay, answer an injected failure, check
 * the bearer token (401 Status otherwise; /healthz, /livez, /readyz and /version are open, as the
 * default RBAC allows them to anyone), then route.
 * Differs from a real API server: no RBAC (any authenticated user may do anything), no protobuf, no dry-run, no pagination (`limit`/`continue` are
 * ignored and the whole list is returned), no server-side apply.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { CsrController } from './csr-controller.js';
import { FaultState, type RequestInfo } from './faults.js';
import { writeKubeconfig } from './kubeconfig.js';
import { NamespaceDefaults } from './namespace-defaults.js';
import { createTestCa, createTestPki, type ClientCertificate } from './pki.js';
import { createKubeletClient, type KubeletClient } from './kubelet-client.js';
import { podLogPath, proxyPodLog } from './pod-log-proxy.js';
import { kubeletProxyTarget, proxyToKubelet } from './pod-stream-proxy.js';
import { serveUpgradeRequests, upgradedConnection } from '../../src/adapters/http/kubelet-server/upgrade-requests.js';
import { INITIAL_NAMESPACES } from './resources.js';
import { createReviews, type Reviews } from './reviews.js';
import { route, sendError } from './router.js';
import { ServiceAccountTokens } from './service-account-tokens.js';
import { masterService } from './service-rules.js';
import { ApiError, apiErrors, statusBody } from './status.js';
import { ObjectStore } from './store.js';
import { WatchHub } from './watch.js';

export interface TestApiServerOptions {
  /** The bearer token clients must present; random when not given. */
  token?: string;
  /** How many changes a watch can resume across before 410 Gone (default 1000). */
  historyLimit?: number;
  /** How often watches with allowWatchBookmarks get a BOOKMARK (default 60 s, as Go's watch cache). */
  bookmarkIntervalMs?: number;
  /** The clock for creationTimestamp and deletionTimestamp (default: the wall clock). */
  now?: () => Date;
  /** Serve HTTPS with a throw-away CA and accept client certificates it signed (default: plain HTTP). */
  tls?: boolean;
  /**
   * Bootstrap tokens (`<6 chars>.<16 chars>`, [a-z0-9]) accepted as `system:bootstrap:<id>` in group
   * system:bootstrappers, as the API server's bootstrap token authenticator does.
   */
  bootstrapTokens?: readonly string[];
  /** The `iss` of service account tokens (--service-account-issuer); default https://kubernetes.default.svc.cluster.local. */
  serviceAccountIssuer?: string;
  /** The audiences of a TokenRequest that names none (--api-audiences); default [the issuer]. */
  apiAudiences?: readonly string[];
  /** Extend pod-bound 3607 s tokens to a year (--service-account-extend-token-expiration); default true. */
  extendTokenExpiration?: boolean;
  /** Publish `kube-root-ca.crt` in every namespace, as kube-controller-manager does (default true). */
  rootCaConfigMaps?: boolean;
  /** Make the `default` ServiceAccount in every namespace, as kube-controller-manager does (default true). */
  defaultServiceAccounts?: boolean;
  /** Keep the `kubernetes` Service in `default` (10.96.0.1:443), as the API server does (default true). */
  masterService?: boolean;
  /**
   * pods/log dials this host for every kubelet instead of the node's address (pod-log-proxy.ts):
   * test kubelets listen on 127.0.0.1, which no node address is.
   */
  kubeletDialHost?: string;
}

/** Who a request authenticated as: the token's user, or a client certificate's CN and O. */
export interface AuthenticatedUser {
  username: string;
  groups: string[];
}

/** The user the bearer token authenticates as. */
export const TOKEN_USER: AuthenticatedUser = { username: 'kubelet-ts-test-admin', groups: ['system:masters', 'system:authenticated'] };

export interface RequestRecord extends RequestInfo {
  query: Record<string, string>;
  contentType: string;
  /** HTTP status answered (200 for a watch that started). */
  status: number;
  watch: boolean;
  /** Wall-clock ms when the request arrived. */
  atMs: number;
  /** Set once the request authenticated. */
  user?: AuthenticatedUser;
  /** The SHA-256 fingerprint of the client certificate the connection presented (TLS mode). */
  clientCertificateFingerprint?: string;
}

export interface Faults {
  /** Stop listening (open connections and watches are cut), and listen again on the same port after `ms`. Resolves when listening again. */
  refuseConnections(ms: number): Promise<void>;
  /** Stop listening until resumeListening(); for outages a test ends itself. */
  stopListening(): Promise<void>;
  resumeListening(): Promise<void>;
  /** The next `n` requests (those `match` accepts, default all) answer `status` (default 500) with a Status body. */
  failNext(n: number, status?: number, match?: (r: RequestInfo) => boolean): void;
  /** Every request waits `ms` before it is answered (0 turns it off). */
  delay(ms: number): void; // a fault to inject (latency), not a wait in a test
  /** End every open watch stream cleanly, as an API server restart or a load balancer would. */
  closeWatches(): void;
  /** Clear delay and pending failures. */
  reset(): void;
}

export interface TestApiServer {
  /** http://127.0.0.1:<port>, or https:// with `tls`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** PEM of the CA behind the serving certificate (`tls` only). */
  readonly caPem: string | undefined;
  /**
   * PEM published as `ca.crt` of every `kube-root-ca.crt`: the serving CA with `tls`, a throw-away CA
   * without; undefined when `rootCaConfigMaps` is false.
   */
  readonly rootCaPem: string | undefined;
  /** Service account tokens: the issuer, what was requested, verify(), the JWKS and public key. */
  readonly tokens: ServiceAccountTokens;
  /**
   * Writes `<dir>/kubeconfig` (cluster, user, context, current-context) and returns its path. The
   * user is the bearer token, or the given client certificate (from issueClientCertificate).
   */
  kubeconfigPath(dir: string, opts?: { clientCertificate?: ClientCertificate; token?: string; fileName?: string }): string;
  /** The approver and signer of CSRs (`tls` only): its policy is the test's to set. */
  readonly csr: CsrController | undefined;
  /** A client certificate the server accepts as `user` in `groups` (`tls` only). */
  issueClientCertificate(user: string, groups?: readonly string[]): Promise<ClientCertificate>;
  /**
   * PEM of the CA behind the API server's own client certificate for kubelets (pods/log is proxied
   * with it): a kubelet's authentication.x509.clientCAFile, so it lets the API server in.
   */
  kubeletClientCaPem(): Promise<string>;
  /** Direct access to the objects, with the same write rules as the HTTP API. */
  readonly store: ObjectStore;
  /** What TokenReview and SubjectAccessReview answer. */
  readonly reviews: Reviews;
  readonly faults: Faults;
  /** Every request received, in order (the test may clear it with `requests.length = 0`). */
  readonly requests: RequestRecord[];
  /** Open watch streams now. */
  watchCount(): number;
  /** Send a BOOKMARK now on every watch that allows them. */
  sendBookmarks(): void;
  close(): Promise<void>;
}

const OPEN_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);
const MAX_BODY_BYTES = 3 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(apiErrors.badRequest('request entity too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string, contentType: string): unknown {
  if (text === '') return undefined;
  if (contentType.includes('protobuf') || contentType.includes('yaml') || contentType.includes('cbor')) {
    throw apiErrors.unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw apiErrors.badRequest(`json parse error: ${(err as Error).message}`);
  }
}

/** A fault's own duration: the latency or the outage a test asked for. */
function faultLasting(ms: number): Promise<void> {
  // The fault itself, not a wait in a test: the server answers this much later.
  return new Promise((r) => setTimeout(r, ms)); // the injected latency
}

export async function startTestApiServer(opts: TestApiServerOptions = {}): Promise<TestApiServer> {
  const token = opts.token ?? randomBytes(16).toString('hex');
  const store = new ObjectStore({
    ...(opts.historyLimit !== undefined ? { historyLimit: opts.historyLimit } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
  });
  for (const name of INITIAL_NAMESPACES) store.create('namespaces', { metadata: { name } });
  const watches = new WatchHub(store, opts.bookmarkIntervalMs ?? 60_000);
  const reviews = createReviews();
  const tokens = new ServiceAccountTokens(store, {
    ...(opts.serviceAccountIssuer !== undefined ? { issuer: opts.serviceAccountIssuer } : {}),
    ...(opts.apiAudiences !== undefined ? { audiences: opts.apiAudiences } : {}),
    ...(opts.extendTokenExpiration !== undefined ? { extendExpiration: opts.extendTokenExpiration } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
  });
  const faultState = new FaultState();
  const requests: RequestRecord[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const contentType = req.headers['content-type'] ?? '';
    const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    const record: RequestRecord = {
      method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType, status: 0, watch, atMs: Date.now(),
    };
    requests.push(record);
    res.on('finish', () => (record.status = res.statusCode));
    if (watch) record.status = 200;
    try {
      // An upgraded request has no body: what follows its headers belongs to the stream.
      const text = upgradedConnection(req) ? '' : await readBody(req);
      if (faultState.delayMs > 0) await faultLasting(faultState.delayMs);
      const failure = faultState.takeFailure({ method, path: url.pathname });
      if (failure !== undefined) {
        sendError(res, new ApiError(statusBody(failure, `injected failure (${failure})`)));
        return;
      }
      if (OPEN_PATHS.has(url.pathname)) {
        const body = url.pathname === '/version'
          ? JSON.stringify({ major: '1', minor: '34', gitVersion: 'v1.34.0-kubelet-ts-test', platform: 'linux/amd64' })
          : 'ok';
        res.writeHead(200, { 'Content-Type': url.pathname === '/version' ? 'application/json' : 'text/plain' });
        res.end(body);
        return;
      }
      const user = authenticate(req);
      if (user === undefined) throw apiErrors.unauthorized();
      record.user = user;
      const peer = (req.socket as Partial<TLSSocket>).getPeerCertificate?.();
      if (peer?.fingerprint256) record.clientCertificateFingerprint = peer.fingerprint256;
      const logTarget = method === 'GET' ? podLogPath(url.pathname) : undefined;
      if (logTarget !== undefined) {
        await proxyPodLog(store, (await kubeletClient()).identity, logTarget, url.searchParams, res);
        return;
      }
      const kubeletTarget = kubeletProxyTarget(method, url.pathname);
      if (kubeletTarget !== undefined) {
        await proxyToKubelet(store, (await kubeletClient()).identity, kubeletTarget, url.searchParams, req, text, res);
        return;
      }
      const served = await route({ store, watches, reviews, tokens, externalUrl: serverUrl }, {
        method, pathname: url.pathname, query: url.searchParams, contentType, body: parseJson(text, contentType), user,
      }, res);
      if (!served) throw apiErrors.pathNotFound();
    } catch (err) {
      if (!res.headersSent) sendError(res, err);
      else res.end();
    }
  }

  const pki = opts.tls === true ? await createTestPki() : undefined;
  const csr = pki === undefined ? undefined : new CsrController(store, pki);
  const rootCaPem = opts.rootCaConfigMaps === false ? undefined : pki?.caPem ?? (await createTestCa()).certificatePem;
  // Made on first use: most tests never ask for a pod's log.
  let kubeletClientMade: Promise<KubeletClient> | undefined;
  const kubeletClient = (): Promise<KubeletClient> => (kubeletClientMade ??= createKubeletClient(pki, opts.kubeletDialHost));
  const namespaceDefaults = new NamespaceDefaults(store, { rootCaPem, defaultServiceAccount: opts.defaultServiceAccounts !== false });
  function authenticate(req: IncomingMessage): AuthenticatedUser | undefined {
    if (req.headers.authorization === `Bearer ${token}`) return TOKEN_USER;
    const bootstrap = /^Bearer ([a-z0-9]{6})\.[a-z0-9]{16}$/.exec(req.headers.authorization ?? '');
    if (bootstrap && opts.bootstrapTokens?.includes(req.headers.authorization!.slice('Bearer '.length))) {
      return { username: `system:bootstrap:${bootstrap[1]}`, groups: ['system:bootstrappers', 'system:authenticated'] };
    }
    const socket = req.socket as Partial<TLSSocket>;
    if (pki === undefined || socket.authorized !== true || socket.getPeerCertificate === undefined) return undefined;
    const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined> | undefined;
    const cn = subject?.CN;
    if (typeof cn !== 'string') return undefined;
    const o = subject?.O;
    return { username: cn, groups: [...(o === undefined ? [] : Array.isArray(o) ? o : [o]), 'system:authenticated'] };
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => void handle(req, res);
  const server: Server = pki === undefined
    ? createServer(onRequest)
    : createHttpsServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: [pki.caPem], requestCert: true, rejectUnauthorized: false }, onRequest);
  // exec, attach, port-forward and nodes/proxy upgrades take the same path as every request.
  serveUpgradeRequests(server, onRequest);
  const listen = (port: number): Promise<void> => new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  let listening = false;
  const stopListening = async (): Promise<void> => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((r) => server.close(() => r()));
    watches.closeAll();
    server.closeAllConnections();
    await closed;
  };
  await listen(0);
  listening = true;
  const port = (server.address() as AddressInfo).port;
  if (opts.masterService !== false) store.create('services', masterService(port));
  const url = `${pki === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  // handle() names its request URL `url`; requests only arrive after this is set.
  const serverUrl = url;
  const resumeListening = async (): Promise<void> => {
    if (listening) return;
    await listen(port);
    listening = true;
  };

  const faults: Faults = {
    async refuseConnections(ms) {
      await stopListening();
      await faultLasting(ms);
      await resumeListening();
    },
    stopListening,
    resumeListening,
    failNext(n, status = 500, match) {
      faultState.failNext(n, status, match);
    },
    delay(ms) { // the injected latency itself
      faultState.delayMs = ms;
    },
    closeWatches() {
      watches.closeAll();
    },
    reset() {
      faultState.reset();
    },
  };

  return {
    url,
    port,
    token,
    caPem: pki?.caPem,
    rootCaPem,
    tokens,
    kubeconfigPath: (dir, o = {}) => writeKubeconfig(dir, {
      server: url, token: o.token ?? token, ...(pki ? { caPem: pki.caPem } : {}), ...(o.clientCertificate ? { clientCertificate: o.clientCertificate } : {}),
    }, o.fileName),
    csr,
    issueClientCertificate(user, groups) {
      if (pki === undefined) return Promise.reject(new Error('issueClientCertificate needs startTestApiServer({ tls: true })'));
      return pki.issueClientCertificate(user, groups);
    },
    kubeletClientCaPem: async () => (await kubeletClient()).caPem,
    store,
    reviews,
    faults,
    requests,
    watchCount: () => watches.count(),
    sendBookmarks: () => watches.sendBookmarks(),
    async close() {
      await stopListening();
      csr?.close();
      namespaceDefaults.close();
      (await kubeletClientMade)?.close();
      if (pki !== undefined) rmSync(pki.dir, { recursive: true, force: true });
    },
  };
}
