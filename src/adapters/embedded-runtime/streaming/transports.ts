/**
 * Which protocol serves a request to the streaming server, by its `Upgrade` header (lower case):
 * WebSocket (client-node, kubectl ≥ 1.30) and SPDY/3.1 (kubectl ≤ 1.29, Debian's 1.20 among them). A
 * transport only moves bytes between the client and a RemoteCommandSession or a PortDialer; what
 * runs behind them is the runtime's.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PortDialer, RemoteCommandOptions, RemoteCommandSession } from '../../stream-protocols/sessions.js';
import { serveSpdyPortForward } from '../../stream-protocols/spdy/port-forward.js';
import { serveSpdyRemoteCommand } from '../../stream-protocols/spdy/remote-command.js';
import { serveWebSocketPortForward } from '../../stream-protocols/websocket/port-forward.js';
import { serveWebSocketRemoteCommand } from '../../stream-protocols/websocket/remote-command.js';

export interface StreamLimits {
  /** No traffic either way for this long ends a session (Go's StreamIdleTimeout, 4 h). */
  idleTimeoutMs?: number;
}

export interface StreamTransport {
  remoteCommand(
    req: IncomingMessage, socket: Duplex, head: Buffer, options: RemoteCommandOptions,
    run: (session: RemoteCommandSession) => void, limits: StreamLimits,
  ): void;
  /** `ports`: the CRI request's (possibly none: a transport may learn them from the client). */
  portForward(req: IncomingMessage, socket: Duplex, head: Buffer, dial: PortDialer, ports: readonly number[], limits: StreamLimits): void;
}

export const STREAM_TRANSPORTS: ReadonlyMap<string, StreamTransport> = new Map<string, StreamTransport>([
  ['websocket', {
    remoteCommand: (req, socket, head, options, run, limits) => serveWebSocketRemoteCommand(req, socket, head, options, run, limits),
    portForward: (req, socket, head, dial, ports, limits) => serveWebSocketPortForward(req, socket, head, dial, ports, limits),
  }],
  // SPDY clients name the ports in their streams' headers, not in the request: the CRI request's are not needed.
  ['spdy/3.1', {
    remoteCommand: (req, socket, head, options, run, limits) => serveSpdyRemoteCommand(req, socket, head, options, run, limits),
    portForward: (req, socket, head, dial, _ports, limits) => serveSpdyPortForward(req, socket, head, dial, limits),
  }],
]);
