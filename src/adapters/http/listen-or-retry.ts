/**
 * Listening for an optional server (the debug server, the read-only port): when the address cannot
 * be bound (another process holds the port, the address is not up yet), the kubelet starts anyway;
 * the failure is logged with the address and the reason, and the bind is retried in the background
 * with a back-off (1 s doubling to 30 s) until it succeeds or the server is closed.
 *
 * The same Node server is re-listened on each attempt (Node allows listen again after an 'error'),
 * so what serves its requests is built once.
 */
import type { Logger } from 'pino';
import { boundAddress, joinHostPort, type NodeHttpServer } from './listen.js';

export interface OptionalServer {
  /** host:port bound, or the address asked for while it is not bound yet. */
  readonly address: string;
  /** Whether the first attempt bound the address. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface RetryOptions {
  /** What listens, for the log: e.g. `debug server`. */
  what: string;
  logger?: Logger;
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Run first on close, before the server stops listening (a framework's own shutdown). */
  beforeClose?: () => Promise<void>;
}

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

function listenOnce(server: NodeHttpServer, host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      fail(err);
    };
    const onListening = () => {
      server.off('error', onError);
      done();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port });
  });
}

export async function listenOrRetry(server: NodeHttpServer, host: string, port: number, opts: RetryOptions): Promise<OptionalServer> {
  const asked = { host, port };
  const log = opts.logger;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const attempt = async (delayMs: number, first: boolean): Promise<boolean> => {
    try {
      await listenOnce(server, host, port);
      if (!first) log?.info({ address: boundAddress(server, asked), server: opts.what }, 'Optional server listening after retry');
      return true;
    } catch (err) {
      if (closed) return false;
      const next = Math.min(delayMs * 2, opts.maxDelayMs ?? MAX_DELAY_MS);
      log?.warn({ address: joinHostPort(host, port), server: opts.what, reason: (err as Error).message, retryInMs: delayMs }, 'Optional server cannot listen; retrying in the background');
      timer = setTimeout(() => void attempt(next, false), delayMs);
      timer.unref();
      return false;
    }
  };

  const listening = await attempt(opts.firstDelayMs ?? FIRST_DELAY_MS, true);
  return {
    get address() {
      return boundAddress(server, asked);
    },
    listening,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await opts.beforeClose?.();
      if (server.listening) {
        const stopped = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        await stopped;
      }
    },
  };
}
