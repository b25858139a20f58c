/**
 * The Node server under the kubelet server (node:https) and the read-only server (node:http), with
 * the bounds Go's kubelet sets or that we add: 64 KiB of headers (Go allows 1 MiB), a whole request
 * within 60 s, idle keep-alive connections closed after 90 s (Go's IdleTimeout), a connection
 * silent both ways for 5 minutes closed. Plain and upgrade requests both go to the app.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import type { NodeHttpServer } from '../listen.js';
import type { RequestHandler } from './request-pipeline.js';
import { serveUpgradeRequests } from './upgrade-requests.js';

export const MAX_HEADER_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 60_000;
const KEEP_ALIVE_TIMEOUT_MS = 90_000;
const SILENT_CONNECTION_MS = 5 * 60_000;

export interface KubeletHttpServerOptions {
  /** TLS options (node:https); absent: plain HTTP. */
  tls?: HttpsServerOptions;
  /** Tests shorten these. */
  requestTimeoutMs?: number;
  connectionsCheckingIntervalMs?: number;
}

export function kubeletHttpServer(app: RequestHandler, opts: KubeletHttpServerOptions & { tls: HttpsServerOptions }): HttpsServer;
export function kubeletHttpServer(app: RequestHandler, opts?: KubeletHttpServerOptions): NodeHttpServer;
export function kubeletHttpServer(app: RequestHandler, opts: KubeletHttpServerOptions = {}): NodeHttpServer {
  const options = {
    maxHeaderSize: MAX_HEADER_BYTES,
    requestTimeout: opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    ...(opts.connectionsCheckingIntervalMs !== undefined ? { connectionsCheckingInterval: opts.connectionsCheckingIntervalMs } : {}),
  };
  const handle = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => void app(req, res);
  const server = opts.tls ? createHttpsServer({ ...opts.tls, ...options }, handle) : createHttpServer(options, handle);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // No callback: Node destroys a socket that times out.
  server.setTimeout(SILENT_CONNECTION_MS);
  serveUpgradeRequests(server, handle);
  return server;
}
