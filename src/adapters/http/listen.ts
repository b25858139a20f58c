/**
 * Listen and report where: the one way our servers (kubelet server, read-only port, healthz, debug
 * server) bind and say which address they got. The reported address is Go's net.JoinHostPort
 * form, so an IPv6 address is bracketed (`[::1]:10250`) and the port chosen for port 0 is the real
 * one.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { KubeletError } from '../../domain/errors.js';

export interface RunningServer {
  /** host:port actually bound (port 0 resolves to the real port), IPv6 in brackets. */
  readonly address: string;
  close(): Promise<void>;
}

/** A node:http or node:https server. */
export type NodeHttpServer = HttpServer | HttpsServer;

/** Go's net.JoinHostPort: a host with a colon (IPv6) goes in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Listens on host:port and answers the bound address; closing it drops every connection, open
 * requests too. A failure becomes KLT_ERR_HOST_IO naming `what` (e.g. "healthz address") and the
 * address.
 */
export async function listenHttpServer(server: NodeHttpServer, where: ListenWhere): Promise<RunningServer> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.port, where.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    server.close();
    throw listenError(err, where);
  }
  return {
    address: boundAddress(server, where),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

export interface ListenWhere { host: string; port: number; what: string; retryable: boolean }

export function listenError(err: unknown, where: ListenWhere): KubeletError {
  return new KubeletError('KLT_ERR_HOST_IO', `cannot listen on ${where.what} ${joinHostPort(where.host, where.port)}: ${(err as Error).message}`, {
    cause: err,
    retryable: where.retryable,
  });
}

export function boundAddress(server: NodeHttpServer, where: Pick<ListenWhere, 'host' | 'port'>): string {
  const bound = server.address();
  return typeof bound === 'object' && bound ? joinHostPort(bound.address, bound.port) : joinHostPort(where.host, where.port);
}
