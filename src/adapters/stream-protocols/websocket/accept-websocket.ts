/**
 * The WebSocket handshake for a channel.k8s.io endpoint, done by `ws` on a socket an HTTP server's
 * 'upgrade' event handed us. The subprotocol is chosen as Go's wsstream chooses it: the client's
 * first offer we speak, or the plain binary protocol when it offered none. A client offering only
 * protocols we do not speak gets 400 with Go's message, and no WebSocket.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { writeRawHttpError } from '../raw-http-error.js';
import { pickProtocol, type ChannelProtocol } from './channel-framing.js';

/** Bigger client messages close the connection (1009): stdin and port data come in small pieces. */
const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024 * 1024;

export type AcceptedWebSocket = { ws: WebSocket; protocol: ChannelProtocol };

export function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (!header) return [];
  return header.split(',').map((p) => p.trim()).filter((p) => p !== '');
}

export function acceptWebSocket(
  req: IncomingMessage, socket: Duplex, head: Buffer, supported: readonly ChannelProtocol[], accepted: (result: AcceptedWebSocket) => void,
): void {
  const offered = offeredProtocols(req);
  const protocol = pickProtocol(offered, supported);
  if (!protocol) {
    const names = supported.map((p) => p.name).filter((n) => n !== '');
    writeRawHttpError(socket, 400, `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${names.join(' ')}]`);
    return;
  }
  const server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    handleProtocols: () => (protocol.name === '' ? false : protocol.name),
  });
  server.handleUpgrade(req, socket, head, (ws) => {
    server.close();
    accepted({ ws, protocol });
  });
}
