/**
 * One HTTP/2 session to the API server for one client (client-go's transport): every request and
 * watch is a stream on a single TLS connection, instead of a connection per request in flight.
 * - The protocol is chosen by ALPN on the first connection: a server that does not offer h2 gets
 *   `null` from `session()`, and the caller keeps to HTTP/1.1 for this client's life.
 * - A session the server ends (GOAWAY, a closed connection, an error) is dropped: the next request
 *   connects again, so an API server outage fails requests, never the process.
 * - client-go's health check: a connection that has been idle for `readIdleMs` is pinged, and closed
 *   if the ping has no answer within `pingTimeoutMs`, which ends its streams (watches re-list). Node
 *   counts frames sent as activity too, where Go counts frames read.
 * - The session holds the process up only while a stream is open, as an idle keep-alive socket does not.
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders } from 'node:http2';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import tls, { type SecureContext } from 'node:tls';

export interface H2Settings {
  /** Idle time after which the connection is pinged; 0 turns the health check off. */
  readIdleMs: number;
  pingTimeoutMs: number;
  /** Time for TCP and TLS to connect (Go: dial 30 s, TLS handshake 10 s). */
  connectTimeoutMs: number;
}

/** client-go's defaults and its environment variables (DISABLE_HTTP2, HTTP2_READ_IDLE_TIMEOUT_SECONDS, HTTP2_PING_TIMEOUT_SECONDS). */
export function h2SettingsFromEnv(env: NodeJS.ProcessEnv = process.env): H2Settings | null {
  if ((env.DISABLE_HTTP2 ?? '') !== '') return null;
  const seconds = (name: string, fallback: number) => {
    const n = Number(env[name] ?? '');
    return (env[name] ?? '') !== '' && Number.isInteger(n) && n >= 0 ? n : fallback;
  };
  return { readIdleMs: seconds('HTTP2_READ_IDLE_TIMEOUT_SECONDS', 30) * 1000, pingTimeoutMs: seconds('HTTP2_PING_TIMEOUT_SECONDS', 15) * 1000, connectTimeoutMs: 30_000 };
}

export interface H2Target {
  /** https://host[:port] */
  origin: URL;
  secureContext: SecureContext;
  rejectUnauthorized: boolean;
  servername?: string;
}

/** The answer of one stream: its status and headers, and the stream to read the body from. */
export interface H2Answer {
  status: number;
  stream: ClientHttp2Stream;
}

export class H2Endpoint {
  /** undefined: not known yet; false: the server speaks HTTP/1.1 only. */
  private offersH2: boolean | undefined = undefined;
  private current: ClientHttp2Session | null = null;
  private connecting: Promise<ClientHttp2Session | null> | null = null;
  /** Open streams per session: a session holds the process up only while it has some. */
  private readonly open = new WeakMap<ClientHttp2Session, number>();

  constructor(private readonly target: H2Target, private readonly settings: H2Settings) {}

  /** A live session, or null when the server does not speak h2 (the caller uses HTTP/1.1). */
  session(signal?: AbortSignal): Promise<ClientHttp2Session | null> {
    if (this.offersH2 === false) return Promise.resolve(null);
    const live = this.current;
    if (live && !live.closed && !live.destroyed) return Promise.resolve(live);
    this.connecting ??= this.connect().finally(() => { this.connecting = null; });
    return signal ? abortable(this.connecting, signal) : this.connecting;
  }

  /** Sends one request as a stream; resolves on the answer's headers. */
  async request(headers: OutgoingHttpHeaders, payload: Buffer | undefined, signal?: AbortSignal): Promise<H2Answer | null> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.session(signal);
      if (session === null) return null;
      try {
        return await this.send(session, headers, payload, signal);
      } catch (err) {
        // A stream the server refused unprocessed (GOAWAY, REFUSED_STREAM) goes once to a new session, as Go retries it.
        if (attempt > 0 || signal?.aborted || !unprocessed(err)) throw err;
        this.drop(session);
      }
    }
  }

  /** Ends the session and its streams; later requests open a new one. */
  close(): void {
    this.current?.destroy();
    this.current = null;
  }

  private send(session: ClientHttp2Session, headers: OutgoingHttpHeaders, payload: Buffer | undefined, signal?: AbortSignal): Promise<H2Answer> {
    return new Promise((resolve, reject) => {
      const stream = session.request(headers, { endStream: payload === undefined, ...(signal ? { signal } : {}) });
      let answered = false;
      const open = this.open.get(session) ?? 0;
      this.open.set(session, open + 1);
      if (open === 0) session.ref();
      stream.once('close', () => {
        const left = (this.open.get(session) ?? 1) - 1;
        this.open.set(session, left);
        if (left === 0 && !session.destroyed) session.unref();
        // A session closed without an error ends its streams without one: the request must still end.
        if (answered) return;
        const err = `the API server ${this.target.origin.origin} closed the stream before answering (HTTP/2 code ${stream.rstCode ?? 'none'})`;
        reject(Object.assign(new Error(err), { code: 'ERR_HTTP2_STREAM_ERROR' }));
      });
      // Kept after the answer: an error after it reaches the body's reader, and never goes unhandled.
      stream.on('error', reject);
      stream.once('response', (answer) => {
        answered = true;
        resolve({ status: Number(answer[':status'] ?? 0), stream });
      });
      if (payload !== undefined) stream.end(payload);
    });
  }

  private async connect(): Promise<ClientHttp2Session | null> {
    const socket = await this.dial();
    if (socket.alpnProtocol !== 'h2') {
      this.offersH2 = false;
      socket.destroy();
      return null;
    }
    this.offersH2 = true;
    const session = http2.connect(this.target.origin, { createConnection: () => socket });
    session.on('error', () => this.drop(session));
    session.on('goaway', () => this.drop(session));
    session.on('close', () => this.drop(session));
    this.armHealthCheck(session);
    session.unref();
    this.current = session;
    return session;
  }

  private dial(): Promise<tls.TLSSocket> {
    const { origin, secureContext, rejectUnauthorized, servername } = this.target;
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    const name = servername ?? (isIP(host) ? undefined : host);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host, port: Number(origin.port || 443), ALPNProtocols: ['h2', 'http/1.1'], secureContext, rejectUnauthorized,
        ...(name !== undefined ? { servername: name } : {}),
      });
      const fail = (err: Error) => {
        socket.destroy();
        reject(err);
      };
      socket.setTimeout(this.settings.connectTimeoutMs, () => fail(Object.assign(new Error(`connecting to ${origin.origin}: no TLS handshake within ${this.settings.connectTimeoutMs}ms`), { code: 'ETIMEDOUT' })));
      socket.once('error', fail);
      socket.once('secureConnect', () => {
        socket.setTimeout(0);
        socket.removeListener('error', fail);
        resolve(socket);
      });
    });
  }

  /** node's session timeout fires once and counts streams' frames, not a ping's: it is armed again after each answer. */
  private armHealthCheck(session: ClientHttp2Session): void {
    if (this.settings.readIdleMs > 0) session.setTimeout(this.settings.readIdleMs, () => this.healthCheck(session));
  }

  private healthCheck(session: ClientHttp2Session): void {
    if (session.destroyed) return;
    const timer = setTimeout(() => {
      const message = `the API server ${this.target.origin.origin} did not answer an HTTP/2 ping within ${this.settings.pingTimeoutMs}ms`;
      session.destroy(Object.assign(new Error(message), { code: 'ETIMEDOUT' }));
    }, this.settings.pingTimeoutMs);
    timer.unref();
    const sent = session.ping((err) => {
      clearTimeout(timer);
      if (err) session.destroy(err);
      else this.armHealthCheck(session);
    });
    if (!sent) clearTimeout(timer);
  }

  private drop(session: ClientHttp2Session): void {
    if (this.current === session) this.current = null;
  }
}

/** node's codes for a stream the server never processed. */
function unprocessed(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (code === 'ERR_HTTP2_GOAWAY_SESSION' || code === 'ERR_HTTP2_INVALID_SESSION') return true;
  return code === 'ERR_HTTP2_STREAM_ERROR' && /NGHTTP2_REFUSED_STREAM/.test(String((err as Error).message));
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * An HTTP/2 stream cut by its session's end emits 'end' like a complete one, with the reset code
 * set: the error to report then, or null for a complete answer (and for HTTP/1.1's, which have none).
 */
export function resetError(stream: Readable): Error | null {
  const code = (stream as { rstCode?: unknown }).rstCode;
  if (typeof code !== 'number' || code === http2.constants.NGHTTP2_NO_ERROR) return null;
  return Object.assign(new Error(`the API server closed the stream before the answer ended (HTTP/2 code ${code})`), { code: 'ERR_HTTP2_STREAM_ERROR' });
}
