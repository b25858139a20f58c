/**
 * Raw connections to a gRPC socket behind a front (src/adapters/h2/grpc-front.ts), for the tests of
 * its connection bounds: one that never speaks, one that sends the HTTP/2 preface, the two bounds'
 * checks, and the front's log lines as JSON. Each connection is destroyed by the cleanup the caller
 * registers.
 */
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect } from 'vitest';

/** How long the gRPC server behind a front may take to start (its modules are loaded then). */
const SERVER_START_MS = 10_000;

export interface RawConnection { socket: Socket; closed: Promise<void>; isClosed: () => boolean }

/** A connection that sends nothing until told; `cleanup` is given its destroy. */
export function rawConnection(socketPath: string, cleanup: (destroy: () => void) => void): RawConnection {
  const socket = connect(socketPath);
  socket.on('error', () => {});
  // Read, so the server's end is seen (a paused socket never reports it).
  socket.resume();
  let done = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => {
    done = true;
    resolve();
  }));
  cleanup(() => socket.destroy());
  return { socket, closed, isClosed: () => done };
}

/** The magic and an empty SETTINGS frame: a whole client preface. */
const PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

/** Sends the preface and waits for the server's SETTINGS: the connection was taken and passed on. */
export async function spoken(c: { socket: Socket }): Promise<void> {
  const answered = new Promise((r) => c.socket.once('data', r));
  c.socket.write(PREFACE);
  await answered;
}

/**
 * Until a new connection is taken: the server sees a close a moment after the client does, and the
 * first connection waits, unread, for the gRPC server behind the front to start (a short preface
 * timeout may close it first).
 */
export async function untilTakesANewConnection(socketPath: string): Promise<void> {
  await expect.poll(async () => {
    const next = rawConnection(socketPath, () => {});
    const taken = await Promise.race([spoken(next).then(() => true), next.closed.then(() => false)]);
    next.socket.destroy();
    return taken;
  }, { timeout: SERVER_START_MS }).toBe(true);
}

/** A connection that never speaks is closed, and one that sent the preface is still open past the timeout. */
export async function expectPrefaceTimeout(socketPath: string, prefaceTimeoutMs: number, cleanup: (destroy: () => void) => void): Promise<void> {
  const silent = rawConnection(socketPath, cleanup);
  const speaking = rawConnection(socketPath, cleanup);
  await spoken(speaking);
  await silent.closed;
  await new Promise((r) => setTimeout(r, prefaceTimeoutMs + 100));
  expect(speaking.isClosed()).toBe(false);
}

/**
 * With `held` more connections taken (each sent the preface), the next ones are closed as they come
 * while the held stay open; once one held is closed, a new connection is taken.
 */
export async function expectConnectionBound(socketPath: string, held: number, cleanup: (destroy: () => void) => void): Promise<void> {
  const open = Array.from({ length: held }, () => rawConnection(socketPath, cleanup));
  await Promise.all(open.map(spoken));
  const past = [rawConnection(socketPath, cleanup), rawConnection(socketPath, cleanup)];
  await Promise.all(past.map((c) => c.closed));
  expect(open.filter((c) => c.isClosed())).toEqual([]);
  open[0]!.socket.destroy();
  await open[0]!.closed;
  await untilTakesANewConnection(socketPath);
}

export function capturedLog(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}
