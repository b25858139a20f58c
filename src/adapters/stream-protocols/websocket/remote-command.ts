/**
 * exec and attach over WebSocket, as Go's remotecommand server serves them to client-node, kubectl
 * 1.29+ and the API server's WebSocket translation: channels 0 stdin, 1 stdout, 2 stderr, 3 error
 * (the outcome: a v4 Status from v4 on, a bare failure message before), 4 resize. Only what the CRI
 * request asked for is opened; under a TTY there is no stderr. An empty message on the lowest channel
 * we write tells the client the session is up. The command's end is reported once its output has
 * gone out, then the connection is closed normally.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { exitStatusPayload } from '../exit-status.js';
import type { RemoteCommandOptions, RemoteCommandOutcome, RemoteCommandSession, TerminalSize } from '../sessions.js';
import { acceptWebSocket } from './accept-websocket.js';
import { REMOTE_COMMAND_WS_PROTOCOLS } from './channel-framing.js';
import { ChannelConnection, DEFAULT_WS_IDLE_TIMEOUT_MS, type WebSocketServeLimits } from './channel-connection.js';
import { readTerminalSizes } from '../resize-reader.js';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

export function serveWebSocketRemoteCommand(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: RemoteCommandOptions,
  run: (session: RemoteCommandSession) => void,
  limits?: WebSocketServeLimits,
): void {
  acceptWebSocket(req, socket, head, REMOTE_COMMAND_WS_PROTOCOLS, ({ ws, protocol }) => {
    const conn = new ChannelConnection(ws, protocol, limits?.idleTimeoutMs ?? DEFAULT_WS_IDLE_TIMEOUT_MS);
    const stdout = options.stdout ? conn.writable(STDOUT) : null;
    const stderr = options.stderr && !options.tty ? conn.writable(STDERR) : null;
    conn.send(stdout ? STDOUT : stderr ? STDERR : ERROR, Buffer.alloc(0));

    const resizeListeners: Array<(size: TerminalSize) => void> = [];
    const sizes: TerminalSize[] = [];
    readTerminalSizes(conn.readable(RESIZE), (size) => {
      if (resizeListeners.length === 0) sizes.push(size); // a size sent before anyone listened is kept
      for (const listener of resizeListeners) listener(size);
    });

    let done = false;
    run({
      stdin: options.stdin ? conn.readable(STDIN) : null,
      stdout,
      stderr,
      tty: options.tty,
      closed: conn.closed,
      onResize(listener) {
        resizeListeners.push(listener);
        for (const size of sizes.splice(0)) listener(size);
      },
      finish(outcome) {
        if (done) return;
        done = true;
        void report(conn, [stdout, stderr], outcome);
      },
    });
  });
}

async function report(conn: ChannelConnection, outputs: Array<Writable | null>, outcome: RemoteCommandOutcome): Promise<void> {
  await Promise.all(outputs.map(async (output) => {
    if (!output) return;
    output.end();
    await finished(output).catch(() => undefined);
  }));
  const payload = exitStatusPayload(outcome, conn.protocol.statusAsJson);
  if (payload.length > 0) await new Promise<void>((resolve) => conn.send(ERROR, payload, () => resolve()));
  conn.close();
}
