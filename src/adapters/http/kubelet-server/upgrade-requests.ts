/**
 * Upgrade requests (`Connection: Upgrade`, as kubectl's SPDY and WebSocket clients send them) go
 * through the same request pipeline, routes and handlers as every other request.
 *
 * Why: once a Node HTTP server has an 'upgrade' listener, such requests never reach its 'request'
 * handler; without one, Node answers them as plain requests and then parses the upgraded bytes as
 * HTTP. So the listener hands each one to the pipeline with a response bound to its socket:
 * authentication and authorization run as for any other path, an error before the upgrade is an
 * ordinary reply, and a streaming handler leaves the response alone and takes the socket (with the
 * bytes that came after the headers, `upgradeHead`).
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NodeHttpServer } from '../listen.js';

export interface UpgradedConnection {
  socket: Duplex;
  /** What the client sent after the request's headers: the start of the upgraded stream. */
  head: Buffer;
}

const upgraded = new WeakMap<IncomingMessage, UpgradedConnection>();

/** The socket and early bytes of a request that came as an upgrade; undefined for a plain request. */
export function upgradedConnection(req: IncomingMessage): UpgradedConnection | undefined {
  return upgraded.get(req);
}

/**
 * Hands every upgrade request the server receives to `handle` as if it were a plain request, with
 * a response written to its socket; `upgradedConnection(req)` then gives the socket to take over.
 */
export function serveUpgradeRequests(server: NodeHttpServer, handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.set(req, { socket, head });
    const res = new ServerResponse(req);
    // Nothing after this answer is HTTP any more: a reply ends the connection.
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
    res.once('finish', () => socket.end());
    socket.once('error', () => socket.destroy());
    handle(req, res);
  });
}
