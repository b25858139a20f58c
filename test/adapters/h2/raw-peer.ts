/**
 * A bare HTTP/2 server for the client's tests: it sends whatever frames a test writes, valid or
 * not, and records the client's frames, so a test can misbehave as a peer would and see how the
 * client answers. It listens on a unix socket and is closed by the test's cleanup.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi, expect } from 'vitest';
import { FrameSplitter, type RawFrame } from '../../support/h2-frame-splitter.js';
import { CLIENT_PREFACE, frame, settingsFrame, type FrameType, type Setting } from '../../../src/adapters/h2/frames.js';

export type Frame = RawFrame;

export interface RawConnection {
  socket: Socket;
  /** The client's frames so far, after its preface. */
  frames: Frame[];
  send(...bytes: Buffer[]): void;
  /** Waits for a frame of the client's matching `test`, and returns it. */
  next(test: (f: Frame) => boolean): Promise<Frame>;
  closed: Promise<void>;
}

export interface RawPeer {
  path: string;
  /** The next connection the client opens, greeted with the peer's SETTINGS. */
  accept(settings?: ReadonlyArray<readonly [Setting, number]>): Promise<RawConnection>;
  close(): Promise<void>;
}

export async function rawPeer(): Promise<RawPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-h2raw-'));
  const path = join(dir, 'peer.sock');
  const pending: Socket[] = [];
  const waiters: Array<(s: Socket) => void> = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    const waiter = waiters.shift();
    if (waiter) waiter(socket);
    else pending.push(socket);
  });
  await new Promise<void>((done) => server.listen(path, done));
  return {
    path,
    async accept(settings = []) {
      const socket = pending.shift() ?? await new Promise<Socket>((resolve) => waiters.push(resolve));
      const connection = rawConnection(socket);
      connection.send(settingsFrame(settings));
      return connection;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function rawConnection(socket: Socket): RawConnection {
  const frames: Frame[] = [];
  let bytes = Buffer.alloc(0);
  let prefaceSeen = false;
  const splitter = new FrameSplitter();
  socket.on('data', (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
    if (!prefaceSeen) {
      if (bytes.length < CLIENT_PREFACE.length) return;
      bytes = bytes.subarray(CLIENT_PREFACE.length);
      prefaceSeen = true;
    }
    frames.push(...splitter.push(bytes));
    bytes = Buffer.alloc(0);
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    socket,
    frames,
    send: (...parts) => { if (!socket.destroyed) socket.write(Buffer.concat(parts)); },
    async next(test) {
      let found: Frame | undefined;
      await vi.waitFor(() => {
        found = frames.find(test);
        expect(found).toBeDefined();
      }, { timeout: 10_000, interval: 5 });
      return found!;
    },
    closed,
  };
}

/** A frame with any payload, type and stream, as a misbehaving peer sends it. */
export const rawFrame = (type: FrameType | number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer =>
  frame(type as FrameType, flags, streamId, payload);

/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1), after the flag bits `flags`. */
export function hpackInteger(flags: number, prefixBits: number, value: number): Buffer {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) return Buffer.from([flags | value]);
  const out = [flags | mask];
  let rest = value - mask;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Buffer.from(out);
}

/** A literal field that joins the peer's dynamic table (§6.2.1), with a literal name. */
export function indexedLiteral(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x40]), hpackInteger(0, 7, name.length), Buffer.from(name, 'latin1'), hpackInteger(0, 7, value.length), Buffer.from(value, 'latin1')]);
}

export const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
