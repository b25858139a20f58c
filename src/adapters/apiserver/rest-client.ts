/**
 * The kubelet's HTTP client for the API server: JSON over node:https (or node:http) with one
 * keep-alive agent per client, so the three Go clients (main, events, heartbeat) keep their own
 * connections, and `close()` drops them all (Go's closeAllConns).
 *
 * Why not @kubernetes/client-node for this: loading it costs more CPU and memory at start than the
 * rest of cluster mode (its generated client and undici come with KubeConfig; docs/FINDINGS.md),
 * for the few REST calls and one watch that the kubelet makes. Answers
 * stay wire JSON (no model classes, no Date round-trip). client-node is still used for what it
 * serves and we do not rebuild: the credentials of exec plugins and auth-providers (`external`).
 *
 * A non-2xx answer rejects with HttpStatusError (its code and body); api-errors.ts maps it.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import type { Clock } from '../../ports/clock.js';
import type { Kubeconfig } from './kubeconfig-file.js';

export class HttpStatusError extends Error {
  constructor(readonly code: number, readonly body: string) {
    super(`HTTP ${code}`);
    this.name = 'HttpStatusError';
  }
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

/** Headers (and, from an exec plugin, a client certificate) to add to one request. */
export interface Credentials {
  headers: Record<string, string>;
  cert?: Buffer | string;
  key?: Buffer | string;
}

/**
 * Requests in flight at once on one client: more wait for a free connection. Unbounded, a burst of
 * pods (a token, a status patch, events for each) opened a TLS connection per concurrent request,
 * each a handshake, where client-go multiplexes them on one HTTP/2 connection. Watches, which hold
 * their connection for their whole life, have connections of their own and are not counted here.
 */
const MAX_REQUEST_CONNECTIONS = 8;

/** client-go re-reads a token file at most once a minute (cachingTokenSource). */
const TOKEN_FILE_TTL_MS = 60_000;

export class RestClient {
  private agent: http.Agent;
  private watchAgent: http.Agent;
  private readonly base: string;
  private readonly secure: boolean;
  private fileToken: { value: string; readAtMs: number } | null = null;
  private external: Promise<(opts: https.RequestOptions) => Promise<void>> | null = null;

  constructor(private readonly config: Kubeconfig, private readonly clock: Pick<Clock, 'now'>, private readonly userAgent: string) {
    this.base = config.cluster.server.replace(/\/+$/, '');
    this.secure = this.base.startsWith('https:');
    this.agent = this.newAgent(MAX_REQUEST_CONNECTIONS);
    this.watchAgent = this.newAgent(Infinity);
  }

  get server(): string {
    return this.config.cluster.server;
  }

  /** Drops every connection: requests after this open new ones. */
  close(): void {
    this.agent.destroy();
    this.agent = this.newAgent(MAX_REQUEST_CONNECTIONS);
    this.watchAgent = this.newAgent(Infinity);
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    const text = await readBody(res);
    if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) throw new HttpStatusError(res.statusCode ?? 0, text);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  /** A GET whose answer is a stream (a watch): resolves once a 200 arrives, rejects with HttpStatusError otherwise. */
  async stream(path: string, opts: RequestOptions = {}): Promise<http.IncomingMessage> {
    const res = await this.send('GET', path, opts, this.watchAgent);
    if (res.statusCode !== 200) throw new HttpStatusError(res.statusCode ?? 0, await readBody(res));
    return res;
  }

  private newAgent(maxSockets: number): http.Agent {
    if (!this.secure) return new http.Agent({ keepAlive: true, maxSockets });
    const { cluster, user } = this.config;
    const material = { ...(cluster.ca ? { ca: cluster.ca } : {}), ...(user.cert && user.key ? { cert: user.cert, key: user.key } : {}) };
    return new https.Agent({
      keepAlive: true,
      maxSockets,
      ...material,
      rejectUnauthorized: !cluster.insecureSkipTlsVerify,
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
      // One TLS context for every connection: else each new one parses the CA and the key again,
      // and a burst of requests opens many at once. Not for an exec plugin's user, whose certificate
      // comes with each request (the agent's options would override it).
      ...(user.external ? {} : { secureContext: createSecureContext(material) }),
    });
  }

  private async send(method: string, path: string, opts: RequestOptions, agent = this.agent): Promise<http.IncomingMessage> {
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const credentials = await this.credentials();
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': this.userAgent,
      ...credentials.headers,
      ...(payload ? { 'Content-Type': opts.contentType ?? 'application/json', 'Content-Length': String(payload.length) } : {}),
    };
    const transport = this.secure ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, {
        method,
        headers,
        agent,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(credentials.cert && credentials.key ? { cert: credentials.cert, key: credentials.key } : {}),
      }, resolve);
      req.on('error', reject);
      req.end(payload);
    });
  }

  private async credentials(): Promise<Credentials> {
    const { user } = this.config;
    const headers: Record<string, string> = {};
    const token = user.token ?? this.tokenFromFile();
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    else if (user.basic) headers.Authorization = `Basic ${Buffer.from(`${user.basic.username}:${user.basic.password}`).toString('base64')}`;
    if (!user.external) return { headers };
    const apply = await (this.external ??= loadExternalCredentials(this.config.path));
    const opts: https.RequestOptions = { headers: {} };
    await apply(opts);
    const fromPlugin = Object.fromEntries(Object.entries(opts.headers ?? {}).map(([k, v]) => [k, String(v)]));
    return {
      headers: { ...headers, ...fromPlugin },
      ...(opts.cert && opts.key ? { cert: opts.cert as Buffer | string, key: opts.key as Buffer | string } : {}),
    };
  }

  private tokenFromFile(): string | undefined {
    const file = this.config.user.tokenFile;
    if (file === undefined) return undefined;
    const now = this.clock.now();
    if (this.fileToken === null || now - this.fileToken.readAtMs >= TOKEN_FILE_TTL_MS) {
      this.fileToken = { value: readFileSync(file, 'utf8').trim(), readAtMs: now };
    }
    return this.fileToken.value;
  }
}

/** client-node's KubeConfig for an exec plugin or auth-provider user, loaded on first use only. */
async function loadExternalCredentials(path: string): Promise<(opts: https.RequestOptions) => Promise<void>> {
  const { KubeConfig } = await import('./client-node.js');
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return (opts) => kc.applyToHTTPSOptions(opts);
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}
