/**
 * The kubelet's HTTP client for the API server: JSON over one HTTP/2 session per client when the
 * server offers h2 (h2-session.ts; kube-apiserver does, as client-go uses it), else over
 * node:https (or node:http) with keep-alive agents. Each of the three Go clients (main, events,
 * heartbeat) keeps its own connections, and `close()` drops them all (Go's closeAllConns).
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
import type { Readable } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Clock } from '../../ports/clock.js';
import { H2Endpoint, h2SettingsFromEnv, type H2Settings } from './h2-session.js';
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

/** An answer: its status and the body to read (an HTTP/1.1 response or an HTTP/2 stream). */
interface Answer {
  status: number;
  body: Readable;
}

/**
 * Over HTTP/1.1, requests in flight at once on one client: more wait for a free connection.
 * Unbounded, a burst of pods (a token, a status patch, events for each) opened a TLS connection per
 * concurrent request, each a handshake. Watches, which hold their connection for their whole life,
 * have connections of their own and are not counted here. (HTTP/2 needs neither: one connection.)
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
  /** One TLS context for every connection: else each new one parses the CA and the key again. */
  private readonly secureContext: SecureContext | undefined;
  private readonly h2: H2Endpoint | null;

  /** h2: null keeps to HTTP/1.1 (DISABLE_HTTP2, as client-go reads it). */
  constructor(private readonly config: Kubeconfig, private readonly clock: Pick<Clock, 'now'>, private readonly userAgent: string, h2: H2Settings | null = h2SettingsFromEnv()) {
    this.base = config.cluster.server.replace(/\/+$/, '');
    this.secure = this.base.startsWith('https:');
    const { cluster, user } = config;
    // Not for an exec plugin's user, whose certificate comes with each request: it stays on HTTP/1.1.
    this.secureContext = this.secure && !user.external ? createSecureContext(this.tlsMaterial()) : undefined;
    this.h2 = h2 && this.secureContext ? new H2Endpoint({
      origin: new URL(this.base),
      secureContext: this.secureContext,
      rejectUnauthorized: !cluster.insecureSkipTlsVerify,
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
    }, h2) : null;
    this.agent = this.newAgent(MAX_REQUEST_CONNECTIONS);
    this.watchAgent = this.newAgent(Infinity);
  }

  get server(): string {
    return this.config.cluster.server;
  }

  /** Drops every connection: requests after this open new ones. */
  close(): void {
    this.h2?.close();
    this.agent.destroy();
    this.watchAgent.destroy();
    this.agent = this.newAgent(MAX_REQUEST_CONNECTIONS);
    this.watchAgent = this.newAgent(Infinity);
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    const text = await readBody(res.body);
    if (res.status < 200 || res.status > 299) throw new HttpStatusError(res.status, text);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  /** A GET whose answer is a stream (a watch): resolves once a 200 arrives, rejects with HttpStatusError otherwise. */
  async stream(path: string, opts: RequestOptions = {}): Promise<Readable> {
    const res = await this.send('GET', path, opts, this.watchAgent);
    if (res.status !== 200) throw new HttpStatusError(res.status, await readBody(res.body));
    return res.body;
  }

  /** Whether this client's requests go as HTTP/2 streams (known after the first request). */
  async protocol(): Promise<'h2' | 'http/1.1'> {
    return (await this.h2?.connection()) ? 'h2' : 'http/1.1';
  }

  private tlsMaterial(): { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer } {
    const { cluster, user } = this.config;
    return { ...(cluster.ca ? { ca: cluster.ca } : {}), ...(user.cert && user.key ? { cert: user.cert, key: user.key } : {}) };
  }

  private newAgent(maxSockets: number): http.Agent {
    if (!this.secure) return new http.Agent({ keepAlive: true, maxSockets });
    const { cluster } = this.config;
    return new https.Agent({
      keepAlive: true,
      maxSockets,
      ...this.tlsMaterial(),
      rejectUnauthorized: !cluster.insecureSkipTlsVerify,
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
      // An exec plugin's certificate comes with each request (the agent's context would override it).
      ...(this.secureContext ? { secureContext: this.secureContext } : {}),
    });
  }

  private async send(method: string, path: string, opts: RequestOptions, agent = this.agent): Promise<Answer> {
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const credentials = await this.credentials();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.userAgent,
      ...credentials.headers,
      ...(payload ? { 'content-type': opts.contentType ?? 'application/json', 'content-length': String(payload.length) } : {}),
    };
    if (this.h2) {
      const answer = await this.h2.request({ method, path: url.pathname + url.search, headers }, payload, opts.signal);
      if (answer) return answer;
    }
    const transport = this.secure ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, {
        method,
        headers,
        agent,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(credentials.cert && credentials.key ? { cert: credentials.cert, key: credentials.key } : {}),
      }, (res) => resolve({ status: res.statusCode ?? 0, body: res }));
      req.on('error', reject);
      req.end(payload);
    });
  }

  private async credentials(): Promise<Credentials> {
    const { user } = this.config;
    const headers: Record<string, string> = {};
    const token = user.token ?? this.tokenFromFile();
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    else if (user.basic) headers.authorization = `Basic ${Buffer.from(`${user.basic.username}:${user.basic.password}`).toString('base64')}`;
    if (!user.external) return { headers };
    const apply = await (this.external ??= loadExternalCredentials(this.config.path));
    const opts: https.RequestOptions = { headers: {} };
    await apply(opts);
    const fromPlugin = Object.fromEntries(Object.entries(opts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
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
  return async (opts) => {
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (err) {
      throw withoutPluginOutput(err);
    }
  };
}

/**
 * client-node rejects a failed exec plugin with the plugin's stderr as the message, and a bad answer
 * with JSON.parse's, which quotes the answer: either can hold a credential, so only the error's
 * code and the message's length are kept (no `cause`, which loggers print too).
 */
function withoutPluginOutput(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return new Error(`the kubeconfig user's exec plugin or auth-provider gave no credentials${code ? ` (${code})` : ''}; its message (${message.length} characters) is not shown: it may hold a credential`);
}

function readBody(res: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    // A connection cut without an error still ends the read.
    res.on('close', () => {
      if (!res.readableEnded) reject(Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }));
    });
  });
}
