/**
 * The kubelet server's app served on 127.0.0.1 by the server the daemon uses (kubeletHttpServer,
 * plain HTTP), and real requests to it: what a client sees, status, headers and body.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kubeletHttpServer, type KubeletHttpServerOptions } from '../../../../src/adapters/http/kubelet-server/http-server.js';
import type { RequestHandler } from '../../../../src/adapters/http/kubelet-server/request-pipeline.js';
import type { NodeHttpServer } from '../../../../src/adapters/http/listen.js';

export interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Ask {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

export interface ServedApp {
  readonly server: NodeHttpServer;
  /** Resolves to the port once the server listens. */
  port(): Promise<number>;
  /** One request on a connection of its own, answered in full. */
  inject(ask: string | Ask): Promise<Answer>;
  close(): Promise<void>;
}

/** Starts listening at once; every call waits for it. */
export function serveApp(app: RequestHandler, opts: KubeletHttpServerOptions = {}): ServedApp {
  const server = kubeletHttpServer(app, opts);
  const listening = new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const inject = async (ask: string | Ask): Promise<Answer> => {
    const { method = 'GET', url, headers = {}, payload } = typeof ask === 'string' ? { url: ask } : ask;
    const port = await listening;
    return new Promise((resolve, reject) => {
      const req = request({
        host: '127.0.0.1', port, method, path: url, agent: false,
        headers: payload === undefined ? headers : { 'content-length': String(Buffer.byteLength(payload)), ...headers },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
  return {
    server,
    port: () => listening,
    inject,
    close: async () => {
      await listening.catch(() => undefined);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
