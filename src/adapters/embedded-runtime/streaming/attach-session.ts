/**
 * The streaming Attach: a connection to the container's shim (shim-attach.ts) through
 * /proc/<shim>/cwd/<id>/attach.sock, which carries the container's output from now on and, for a
 * container created with stdin, the client's input. The session ends when the container exits (the
 * shim ends the connection) or the client goes away; as with containerd, an attach reports success
 * whatever the container's exit code (the kubelet reads that from ContainerStatus).
 */
import { connect, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { ChunkQueue } from '../../stream-protocols/chunk-queue.js';
import type { RemoteCommandSession } from '../../stream-protocols/sessions.js';
import { requireRunningContainer } from './exec.js';
import { isAlive, sleep } from '../containers/processes.js';
import type { ContainerRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';
import { ATTACH_SOCKET, ATTACH_WITH_STDIN } from '../shim/shim-protocol.js';

/** A shim that has just started may not be listening yet. */
const CONNECT_ATTEMPTS = 20;
const CONNECT_RETRY_MS = 50;

export async function runAttachSession(state: RuntimeState, containerId: string, session: RemoteCommandSession): Promise<void> {
  let socket: Socket;
  let container: ContainerRecord;
  try {
    container = await requireRunningContainer(state, containerId, 'attach');
    socket = await connectToShim(container);
  } catch (err) {
    // Go's remotecommand prefix: the client reads "Internal error occurred: error attaching to container: …".
    session.finish({ kind: 'failed', message: `error attaching to container: ${(err as Error).message}` });
    return;
  }
  const withStdin = session.stdin !== null && container.stdin === true;
  socket.write(Buffer.of(withStdin ? ATTACH_WITH_STDIN : 0));
  if (withStdin) session.stdin!.pipe(socket);
  else session.stdin?.resume(); // a container without stdin: the client's input goes nowhere, as with containerd

  const clientGone = (): void => {
    socket.destroy();
  };
  session.closed.addEventListener('abort', clientGone, { once: true });
  readOutput(socket, session.stdout, session.stderr);
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    session.closed.removeEventListener('abort', clientGone);
    session.stdin?.unpipe(socket);
    session.finish({ kind: 'exited', exitCode: 0, command: [] });
  });
}

async function connectToShim(container: ContainerRecord): Promise<Socket> {
  for (let attempt = 1; ; attempt++) {
    if (!isAlive(container.shim)) throw new Error(`container ${container.id} has no shim to attach to`);
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ path: `/proc/${container.shim!.pid}/cwd/${container.id}/${ATTACH_SOCKET}`, allowHalfOpen: true });
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      });
    } catch (err) {
      if (attempt >= CONNECT_ATTEMPTS) throw new Error(`cannot reach the shim of container ${container.id}: ${(err as Error).message}`);
      await sleep(CONNECT_RETRY_MS);
    }
  }
}

/** The shim's output frame: a stream byte (1 stdout, 2 stderr), then the data's length (u32 BE). */
const OUTPUT_HEADER_BYTES = 5;

/**
 * Unframes `[stream][u32 length][data]` as it comes off the shim's socket; a frame is copied at most
 * once, when its last byte arrives, however the reads split it (chunk-queue.ts).
 */
export class AttachOutputReader {
  private readonly held = new ChunkQueue();

  push(chunk: Buffer): Array<{ stream: number; data: Buffer }> {
    this.held.push(chunk);
    const frames: Array<{ stream: number; data: Buffer }> = [];
    while (this.held.length >= OUTPUT_HEADER_BYTES) {
      const header = this.held.peek(OUTPUT_HEADER_BYTES);
      const length = header.readUInt32BE(1);
      if (this.held.length < OUTPUT_HEADER_BYTES + length) break;
      const stream = header[0]!;
      this.held.take(OUTPUT_HEADER_BYTES);
      frames.push({ stream, data: this.held.take(length) });
    }
    return frames;
  }
}

/** Writes the shim's output to stdout/stderr, pausing the shim's socket while the client is behind. */
function readOutput(socket: Socket, stdout: Writable | null, stderr: Writable | null): void {
  const reader = new AttachOutputReader();
  socket.on('data', (chunk: Buffer) => {
    for (const { stream, data } of reader.push(chunk)) {
      const target = stream === 2 ? stderr : stdout;
      if (target && !target.write(data)) {
        socket.pause();
        target.once('drain', () => socket.resume());
      }
    }
  });
}
