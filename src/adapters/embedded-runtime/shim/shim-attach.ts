/**
 * The shim's attach socket: how an Attach reaches a container whose pipes the detached shim owns.
 * The shim listens on `<container id>/attach.sock` below its working directory (the shims directory,
 * so the runtime can reach it as /proc/<shim>/cwd/<id>/attach.sock, short whatever the state
 * directory's length: a unix socket path has 107 bytes). Each connection
 * - first sends one byte: 1 to feed the container's stdin, 0 for output only;
 * - then receives the container's output as it is produced, framed `[stream 1|2][u32 BE length][data]`,
 *   while the same output still goes to the CRI log;
 * - and, with stdin, sends raw input that goes to the container's stdin; its half-close ends the
 *   container's stdin when the container was created with stdin_once (else stdin stays open for the
 *   next attach).
 * A client that does not keep up (more than MAX_CLIENT_BACKLOG_BYTES unsent) is dropped rather than
 * letting the container's output pile up in the shim or slowing the log.
 *
 * This module imports nothing from the project but shim-protocol: the detached shim uses it.
 */
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { ATTACH_WITH_STDIN } from './shim-protocol.js';

const MAX_CLIENT_BACKLOG_BYTES = 8 * 1024 * 1024;
/** After the container exited, how long clients get to receive the last output. */
const CLOSE_GRACE_MS = 1_000;

export interface AttachHub {
  /** The container wrote `chunk` on stdout (1) or stderr (2). */
  output(stream: 1 | 2, chunk: Buffer): void;
  /** The container is gone: end every client once its output is out, stop listening. */
  close(): Promise<void>;
}

/** `socketPath`: where to listen, relative to the shim's working directory (kept short: see above). */
export function serveAttach(socketPath: string, stdin: Writable | null, stdinOnce: boolean, report: (message: string) => void): AttachHub {
  const clients = new Set<Socket>();
  let stdinClosed = stdin === null;
  stdin?.on('error', () => undefined); // EPIPE: the container closed its stdin

  const server = createServer({ allowHalfOpen: true }, (socket) => {
    let mode: number | undefined;
    socket.on('error', () => socket.destroy());
    socket.on('close', () => clients.delete(socket));
    socket.on('data', (chunk: Buffer) => {
      let input = chunk;
      if (mode === undefined) {
        mode = input[0];
        input = input.subarray(1);
        clients.add(socket);
      }
      if (mode !== ATTACH_WITH_STDIN || stdinClosed || input.length === 0) return;
      if (!stdin!.write(input)) {
        socket.pause();
        stdin!.once('drain', () => socket.resume());
      }
    });
    socket.on('end', () => {
      if (mode === ATTACH_WITH_STDIN && stdinOnce && !stdinClosed) {
        stdinClosed = true;
        stdin!.end();
      }
    });
  });
  try {
    unlinkSync(socketPath);
  } catch {
    // none left over
  }
  server.on('error', (err) => report(`attach socket: ${err.message}`));
  server.listen(socketPath, () => {
    try {
      chmodSync(socketPath, 0o600);
    } catch (err) {
      report(`attach socket: ${(err as Error).message}`);
    }
  });

  return {
    output(stream, chunk) {
      if (clients.size === 0) return;
      const header = Buffer.allocUnsafe(5);
      header[0] = stream;
      header.writeUInt32BE(chunk.length, 1);
      for (const client of clients) {
        if (client.writableLength > MAX_CLIENT_BACKLOG_BYTES) {
          report('attach: dropped a client that did not keep up with the output');
          client.destroy();
          continue;
        }
        client.write(header);
        client.write(chunk);
      }
    },
    close() {
      server.close();
      return new Promise<void>((resolve) => {
        if (clients.size === 0) return resolve();
        const timer = setTimeout(resolve, CLOSE_GRACE_MS);
        let open = clients.size;
        for (const client of clients) {
          client.once('close', () => {
            if (--open === 0) {
              clearTimeout(timer);
              resolve();
            }
          });
          client.end();
        }
      });
    },
  };
}
