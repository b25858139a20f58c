/**
 * A refusal written straight onto a socket whose request Node handed over as an upgrade (there is no
 * ServerResponse then): a plain-text answer as Go's http.Error words it, then the connection closed.
 * The one writer for the kubelet's stream proxy and both streaming transports.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export function writeRawHttpError(socket: Duplex, status: number, message: string, headers: readonly (readonly [string, string])[] = []): void {
  const body = Buffer.from(`${message}\n`);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: text/plain; charset=utf-8',
    'X-Content-Type-Options: nosniff',
    ...headers.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
  ];
  socket.on('error', () => socket.destroy());
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]), () => socket.destroy());
}
