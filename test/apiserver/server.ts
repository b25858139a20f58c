/**
 * The test API server: an in-process, in-memory Kubernetes API server on 127.0.0.1 over plain
 * HTTP, real enough that @kubernetes/client-node cannot tell (see the tests).
 *
 * It is built on node:http rather than fastify (issue 6 suggested fastify) because the
 * refused-connections fault stops listening and listens again on the same port with the same
 * state, and watches need the raw response; fastify cannot listen again after close().
 *
 * Per request, in order: record it, apply the injected delay, answer an injected failure, check
 * the bearer token (401 Status otherwise; /healthz, /livez, /readyz and /version are open, as the
 * default RBAC allows them to anyone), then route.
 * Differs from a real API server: no TLS and no client-certificate authentication, no RBAC (any
 * valid token may do anything), no protobuf, no dry-run, no pagination (`limit`/`continue` are
 * ignored and the whole list is returned), no server-side apply.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultState, type RequestInfo } from './faults.js';
import { writeKubeconfig } from './kubeconfig.js';
import { INITIAL_NAMESPACES } from './resources.js';
import { createReviews, type Reviews } from './reviews.js';
import { route, sendError } from './router.js';
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
}

export interface RequestRecord extends RequestInfo {
  query: Record<string, string>;
  contentType: string;
  /** HTTP status answered (200 for a watch that started). */
  status: number;
  watch: boolean;
  /** Wall-clock ms when the request arrived. */
  atMs: number;
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
  delay(ms: number): void;
  /** End every open watch stream cleanly, as an API server restart or a load balancer would. */
  closeWatches(): void;
  /** Clear delay and pending failures. */
  reset(): void;
}

export interface TestApiServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Writes `<dir>/kubeconfig` (cluster, token user, context, current-context) and returns its path. */
  kubeconfigPath(dir: string): string;
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
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
      const text = await readBody(req);
      if (faultState.delayMs > 0) await sleep(faultState.delayMs);
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
      if (req.headers.authorization !== `Bearer ${token}`) throw apiErrors.unauthorized();
      const served = route({ store, watches, reviews }, {
        method, pathname: url.pathname, query: url.searchParams, contentType, body: parseJson(text, contentType),
      }, res);
      if (!served) throw apiErrors.pathNotFound();
    } catch (err) {
      if (!res.headersSent) sendError(res, err);
      else res.end();
    }
  }

  const server: Server = createServer((req, res) => void handle(req, res));
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
  const url = `http://127.0.0.1:${port}`;
  const resumeListening = async (): Promise<void> => {
    if (listening) return;
    await listen(port);
    listening = true;
  };

  const faults: Faults = {
    async refuseConnections(ms) {
      await stopListening();
      await sleep(ms);
      await resumeListening();
    },
    stopListening,
    resumeListening,
    failNext(n, status = 500, match) {
      faultState.failNext(n, status, match);
    },
    delay(ms) {
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
    kubeconfigPath: (dir) => writeKubeconfig(dir, url, token),
    store,
    reviews,
    faults,
    requests,
    watchCount: () => watches.count(),
    sendBookmarks: () => watches.sendBookmarks(),
    async close() {
      await stopListening();
    },
  };
}
