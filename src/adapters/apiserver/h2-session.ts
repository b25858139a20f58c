/**
 * One HTTP/2 connection to the API server for one client (client-go's transport): every request and
 * watch is a stream on a single TLS connection, instead of a connection per request in flight. The
 * frames are our own (../h2/client-connection.ts), as for the runtime's socket: node's HTTP/2 streams
 * cost several times the CPU of the requests a kubelet sends while pods start.
 * - The protocol is chosen by ALPN on the first connection: a server that does not offer h2 gets
 *   `null` from `session()`, and the caller keeps to HTTP/1.1 for this client's life.
 * - A connection the server ends (GOAWAY, a closed connection, an error) is dropped: the next request
 *   connects again, so an API server outage fails requests, never the process.
 * - client-go's health check: a connection that has been idle for `readIdleMs` is pinged, and closed
 *   if the ping has no answer within `pingTimeoutMs`, which ends its streams (watches re-list). Idle
 *   means no frame read, as Go counts it.
 * - The connection holds the process up only while a stream is open, as an idle keep-alive socket does not.
 * - A stream's window goes back to the server as its body's reader reads, so a watch whose reader
 *   is paused stops the server after the stream's window (limits.ts), as Go's transport does.
 */
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import tls, { type SecureContext } from 'node:tls';
import { ClientConnection, type ClientStream, type StreamFailure } from '../h2/client-connection.js';

export interface H2Settings {
  /** Idle time after which the connection is pinged; 0 turns the health check off. */
  readIdleMs: number;
  pingTimeoutMs: number;
  /** Time for TCP and TLS to connect (Go: dial 30 s, TLS handshake 10 s). */
  connectTimeoutMs: number;
  /** The last stream id of each connection: HTTP/2's, unless a test wants it to run out. */
  lastStreamId?: number;
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

/** The answer of one stream: its status, and its body as it comes. */
export interface H2Answer {
  status: number;
  body: Readable;
}

/** A request: the endpoint adds the pseudo-headers of its origin. */
export interface H2Request {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
}

export class H2Endpoint {
  /** undefined: not known yet; false: the server speaks HTTP/1.1 only. */
  private offersH2: boolean | undefined = undefined;
  private current: ClientConnection | null = null;
  private connecting: Promise<ClientConnection | null> | null = null;

  constructor(private readonly target: H2Target, private readonly settings: H2Settings) {}

  /** A live connection, or null when the server does not speak h2 (the caller uses HTTP/1.1). */
  connection(signal?: AbortSignal): Promise<ClientConnection | null> {
    if (this.offersH2 === false) return Promise.resolve(null);
    const live = this.current;
    if (live?.usable) return Promise.resolve(live);
    this.connecting ??= this.connect().finally(() => { this.connecting = null; });
    return signal ? abortable(this.connecting, signal) : this.connecting;
  }

  /** Sends one request as a stream; resolves on the answer's headers. */
  async request(request: H2Request, payload: Buffer | undefined, signal?: AbortSignal): Promise<H2Answer | null> {
    for (let attempt = 0; ; attempt++) {
      const connection = await this.connection(signal);
      if (connection === null) return null;
      try {
        return await this.send(connection, request, payload, signal);
      } catch (err) {
        // A stream the server refused unprocessed (GOAWAY, REFUSED_STREAM) goes once to a new connection, as Go retries it.
        if (attempt > 0 || signal?.aborted || !(err as { unprocessed?: boolean }).unprocessed) throw err;
        this.drop(connection);
      }
    }
  }

  /** Ends the connection and its streams; later requests open a new one. */
  close(): void {
    this.current?.destroy(new Error('the client was closed'));
    this.current = null;
  }

  private send(connection: ClientConnection, request: H2Request, payload: Buffer | undefined, signal?: AbortSignal): Promise<H2Answer> {
    const fields: Array<[string, string]> = [
      [':method', request.method], [':scheme', 'https'], [':authority', this.target.origin.host], [':path', request.path],
    ];
    for (const name in request.headers) fields.push([name, request.headers[name]!]);
    return new Promise((resolve, reject) => {
      let body: Readable | null = null;
      /** Bytes pushed to `body` past its buffer's mark, not yet given back to the server. */
      let unconsumed = 0;
      let ended = false;
      /** The stream's failure, kept until the answer's reader listens for it (see `fail`). */
      let failedWith: Error | null = null;
      let stream: ClientStream | undefined;
      /** The stream's one end, whichever way it comes: false when it had ended already. */
      const end = () => {
        if (ended) return false;
        ended = true;
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const fail = (err: Error) => {
        if (!end()) return;
        if (!body) return reject(err);
        // An answer handed out in this very turn has no reader yet, and an 'error' nobody listens for
        // ends the process: the failure waits for the reader to listen and read.
        if (body.listenerCount('error') > 0) body.destroy(err);
        else failedWith = err;
      };
      const onAbort = () => {
        stream?.cancel();
        fail(signal!.reason as Error);
      };
      try {
        stream = connection.request(fields, payload ?? NO_BODY, {
          onHeaders: (headers) => {
            // Trailers: the API server sends none a reader needs.
            if (body) return;
            const status = Number(headers.find(([name]) => name === ':status')?.[1] ?? 0);
            if (status >= 100 && status < 200) return;
            body = new Readable({
              // The reader wants more: what it was handed beyond the buffer is consumed now.
              read() {
                if (failedWith && this.listenerCount('error') > 0) return void this.destroy(failedWith);
                if (unconsumed === 0) return;
                stream?.consumed(unconsumed);
                unconsumed = 0;
              },
              // The reader gave up on the answer (a watch it stops): the stream is reset.
              destroy: (err, callback) => {
                if (end()) stream?.cancel();
                callback(err);
              },
            });
            resolve({ status, body });
          },
          onData: (chunk) => {
            // Within the Readable's buffer a chunk counts as read; beyond it, it waits for the reader's read().
            if (!body || body.push(chunk)) stream?.consumed(chunk.length);
            else unconsumed += chunk.length;
          },
          onEnd: () => {
            if (!body) return fail(this.streamError('closed the stream before answering', { message: 'no headers came' }));
            if (end()) body.push(null);
          },
          onFailure: (failure) => fail(failure.cause ?? this.streamError(body ? 'closed the stream before the answer ended' : 'closed the stream before answering', failure)),
        });
      } catch (err) {
        // The connection ended in this very tick: it takes no new stream, and the request went nowhere.
        reject(Object.assign(err as Error, { code: 'ERR_HTTP2_INVALID_SESSION', unprocessed: true }));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  private streamError(what: string, failure: Pick<StreamFailure, 'message' | 'unprocessed'>): Error {
    return Object.assign(new Error(`the API server ${this.target.origin.origin} ${what} (${failure.message})`), {
      code: 'ERR_HTTP2_STREAM_ERROR', unprocessed: failure.unprocessed === true,
    });
  }

  private async connect(): Promise<ClientConnection | null> {
    const socket = await this.dial();
    if (socket.alpnProtocol !== 'h2') {
      this.offersH2 = false;
      socket.destroy();
      return null;
    }
    this.offersH2 = true;
    const { lastStreamId } = this.settings;
    const connection: ClientConnection = new ClientConnection(socket, {
      holdsProcessWhileActive: true, onClosed: () => this.drop(connection), ...(lastStreamId !== undefined ? { lastStreamId } : {}),
    });
    this.armHealthCheck(connection);
    this.current = connection;
    return connection;
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

  /** A connection that read nothing for `readIdleMs` is pinged; one whose ping has no answer in `pingTimeoutMs` is closed. */
  private armHealthCheck(connection: ClientConnection): void {
    const { readIdleMs, pingTimeoutMs } = this.settings;
    if (readIdleMs <= 0) return;
    const schedule = (ms: number) => setTimeout(check, ms).unref();
    const check = () => {
      if (connection.closed) return;
      const idleMs = Date.now() - connection.lastReadAt;
      if (idleMs < readIdleMs) return void schedule(readIdleMs - idleMs);
      const timer = setTimeout(() => {
        const message = `the API server ${this.target.origin.origin} did not answer an HTTP/2 ping within ${pingTimeoutMs}ms`;
        connection.destroy(Object.assign(new Error(message), { code: 'ETIMEDOUT' }));
      }, pingTimeoutMs);
      timer.unref();
      connection.ping((err) => {
        clearTimeout(timer);
        if (!err) schedule(readIdleMs);
      });
    };
    schedule(readIdleMs);
  }

  private drop(connection: ClientConnection): void {
    if (this.current === connection) this.current = null;
  }
}

const NO_BODY = Buffer.alloc(0);

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
