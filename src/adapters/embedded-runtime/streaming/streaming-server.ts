/**
 * The embedded runtime's streaming server, the counterpart of Go's pkg/kubelet/cri/streaming server:
 * plain HTTP on a loopback address (127.0.0.1, a random port unless configured), started and stopped
 * with the runtime. Exec, Attach and PortForward store their request under a single-use token
 * (request-cache.ts) and answer `http://127.0.0.1:PORT/{exec,attach,portforward}/<token>`; a request
 * there must be a protocol upgrade, handed to the transport its `Upgrade` header names
 * (transports.ts). An unknown, used or expired token is 404 (Go's "404 page not found"); an upgrade
 * no transport speaks is 400.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeRawHttpError } from '../../stream-protocols/raw-http-error.js';
import type { PortDialer, RemoteCommandOptions, RemoteCommandSession } from '../../stream-protocols/sessions.js';
import { StreamRequestCache } from './request-cache.js';
import type { StreamLimits, StreamTransport } from './transports.js';

export type StreamRequest =
  | { kind: 'exec'; containerId: string; cmd: string[]; options: RemoteCommandOptions }
  | { kind: 'attach'; containerId: string; options: RemoteCommandOptions }
  | { kind: 'portforward'; podSandboxId: string; ports: number[] };

/** What runs behind a session: the runtime's half. */
export interface StreamHandlers {
  exec(request: Extract<StreamRequest, { kind: 'exec' }>, session: RemoteCommandSession): void;
  attach(request: Extract<StreamRequest, { kind: 'attach' }>, session: RemoteCommandSession): void;
  dialer(request: Extract<StreamRequest, { kind: 'portforward' }>): PortDialer;
}

export interface StreamingServerOptions {
  handlers: StreamHandlers;
  /** Default 127.0.0.1; the URLs handed out name it. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  limits?: StreamLimits;
  /** Monotonic milliseconds, for the tokens' TTL; default performance.now. */
  now?: () => number;
  transports?: ReadonlyMap<string, StreamTransport>;
}

export interface StreamingServer {
  /** `http://host:port`, no trailing slash. */
  readonly baseUrl: string;
  /** The port it listens on. */
  readonly port: number;
  /** Stores `request` and returns the URL that serves it once. */
  urlFor(request: StreamRequest): string;
  /** Stops listening and ends every open session. */
  close(): Promise<void>;
}

const ROUTE = /^\/(exec|attach|portforward)\/([^/?]+)(?:\?.*)?$/;

export async function startStreamingServer(options: StreamingServerOptions): Promise<StreamingServer> {
  const host = options.host ?? '127.0.0.1';
  const cache = new StreamRequestCache<StreamRequest>({ now: options.now ?? (() => performance.now()) });
  // The transports (ws, our SPDY module) load with the first session, not with the runtime: every
  // start of the embedded runtime would otherwise pay for modules most nodes never use.
  let transports: Promise<ReadonlyMap<string, StreamTransport>> | undefined = options.transports && Promise.resolve(options.transports);
  const loadTransports = () => (transports ??= import('./transports.js').then((m) => m.STREAM_TRANSPORTS));
  const limits = options.limits ?? {};
  const sockets = new Set<Duplex>();

  const server: Server = createServer((req, res) => {
    // Not an upgrade: Go's handler consumes the token, then fails the upgrade.
    const found = takeRequest(cache, req);
    res.writeHead(found ? 400 : 404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(found ? 'Upgrade request required\n' : '404 page not found\n');
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const request = takeRequest(cache, req);
    if (!request) return writeRawHttpError(socket, 404, '404 page not found');
    void loadTransports().then((table) => serve(table, request, req, socket, head), () => writeRawHttpError(socket, 500, 'streaming transports could not be loaded'));
  });
  const serve = (table: ReadonlyMap<string, StreamTransport>, request: StreamRequest, req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const transport = table.get((req.headers.upgrade ?? '').toLowerCase());
    if (!transport) {
      return writeRawHttpError(socket, 400, `unsupported upgrade ${JSON.stringify(req.headers.upgrade ?? '')}: this server speaks ${[...table.keys()].join(', ')}`);
    }
    const { handlers } = options;
    switch (request.kind) {
      case 'exec':
        return transport.remoteCommand(req, socket, head, request.options, (session) => handlers.exec(request, session), limits);
      case 'attach':
        return transport.remoteCommand(req, socket, head, request.options, (session) => handlers.attach(request, session), limits);
      case 'portforward':
        return transport.portForward(req, socket, head, handlers.dialer(request), request.ports, limits);
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return {
    baseUrl,
    port: address.port,
    urlFor: (request) => `${baseUrl}/${request.kind}/${cache.insert(request)}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    }),
  };
}

function takeRequest(cache: StreamRequestCache<StreamRequest>, req: IncomingMessage): StreamRequest | undefined {
  const match = ROUTE.exec(req.url ?? '');
  if (!match || (req.method !== 'GET' && req.method !== 'POST')) return undefined;
  const request = cache.consume(match[2]!);
  return request?.kind === match[1] ? request : undefined;
}
