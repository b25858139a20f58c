/**
 * Port forwarding over WebSocket, as Go's portforward server serves it: two channels per port, in
 * the order the ports were asked for — 2i carries the data both ways, 2i+1 our error text — and the
 * first message on each is the port as two bytes, little endian (client-node strips them). Each
 * port's data goes to one connection the dialer opens; the WebSocket closes once every port's
 * connection has ended and its data has gone out.
 *
 * The ports are the CRI request's when it named any (the kubelet passes on the `port` query it was
 * given), else this request's own `?port=` parameters, parsed as Go parses them.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parsePortForwardPorts } from '../../../domain/kubelet-server/streaming-options.js';
import type { PortDialer } from '../sessions.js';
import { writeRawHttpError } from '../raw-http-error.js';
import { acceptWebSocket } from './accept-websocket.js';
import { PORT_FORWARD_WS_PROTOCOLS } from './channel-framing.js';
import { ChannelConnection, DEFAULT_WS_IDLE_TIMEOUT_MS, type WebSocketServeLimits } from './channel-connection.js';

export function serveWebSocketPortForward(
  req: IncomingMessage, socket: Duplex, head: Buffer, dial: PortDialer, ports: readonly number[], limits?: WebSocketServeLimits,
): void {
  let wanted = [...ports];
  if (wanted.length === 0) {
    const parsed = parsePortForwardPorts(new URL(req.url ?? '/', 'http://localhost').searchParams, true);
    if (!parsed.ok) {
      writeRawHttpError(socket, 400, parsed.message);
      return;
    }
    wanted = parsed.value;
  }
  acceptWebSocket(req, socket, head, PORT_FORWARD_WS_PROTOCOLS, ({ ws, protocol }) => {
    const conn = new ChannelConnection(ws, protocol, limits?.idleTimeoutMs ?? DEFAULT_WS_IDLE_TIMEOUT_MS);
    const forwards = wanted.map((port, i) => forwardPort(conn, port, 2 * i, 2 * i + 1, dial));
    void Promise.all(forwards).then(() => conn.close());
  });
}

async function forwardPort(conn: ChannelConnection, port: number, dataChannel: number, errorChannel: number, dial: PortDialer): Promise<void> {
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16LE(port);
  conn.send(dataChannel, portBytes);
  conn.send(errorChannel, portBytes);
  const fromClient = conn.readable(dataChannel);
  const toClient = conn.writable(dataChannel);
  let target: Duplex;
  try {
    target = await dial(port);
  } catch (err) {
    fromClient.resume(); // nothing will read it: drop what the client sends
    await new Promise<void>((resolve) => conn.send(errorChannel, Buffer.from((err as Error).message), () => resolve()));
    return;
  }
  const gone = (): void => {
    target.destroy();
  };
  conn.closed.addEventListener('abort', gone, { once: true });
  fromClient.pipe(target);
  target.pipe(toClient);
  target.on('error', () => toClient.end());
  await finished(toClient).catch(() => undefined);
  conn.closed.removeEventListener('abort', gone);
  target.destroy();
}
