/**
 * A refusal written straight onto a socket whose request Node handed over as an upgrade (there is no
 * ServerResponse then): a plain-text answer as Go's http.Error words it, then the connection closed.
 * The one writer for the kubelet's stream proxy and both streaming transports; writeRawHttpAnswer
 * writes another body the same way (the test API server's Status objects).
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export function writeRawHttpError(socket: Duplex, status: number, message: string, headers: readonly (readonly [string, string])[] = []): void {
  writeRawHttpAnswer(socket, status, 'text/plain; charset=utf-8', Buffer.from(`${message}\n`), headers);
}

/** Any final answer written that way: `body` as `contentType`, then the connection closed. */
export function writeRawHttpAnswer(
  socket: Duplex, status: number, contentType: string, body: Buffer, headers: readonly (readonly [string, string])[] = [],
): void {
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    `Content-Type: ${contentType}`,
    'X-Content-Type-Options: nosniff',
    ...headers.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
  ];
  socket.on('error', () => socket.destroy());
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]), () => socket.destroy());
}
