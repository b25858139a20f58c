/**
 * An HTTP/2 server that misbehaves on purpose, for the malicious-peer regression suite: a raw
 * net.Server on a unix socket (where the CRI client connects) or a tls.Server offering ALPN h2 on
 * 127.0.0.1 (where the API client connects), speaking just enough HTTP/2 by hand — its SETTINGS,
 * the client's preface and frames read, SETTINGS and PINGs acknowledged, the client's windows
 * followed — and leaving the rest to a script per connection.
 *
 * It is written apart from src/adapters/h2 on purpose: a peer built from the code under test would
 * share its mistakes. Every write honours the socket's backpressure, so what the test process's
 * memory does is the client's doing, not the server's.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { FrameSplitter, type RawFrame } from './h2-frame-splitter.js';

export type Transport = 'unix' | 'tls';

export const FRAME = { DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, PING: 0x6, GOAWAY: 0x7, WINDOW_UPDATE: 0x8, CONTINUATION: 0x9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
export const ERROR = { NO_ERROR: 0x0, PROTOCOL_ERROR: 0x1, FLOW_CONTROL_ERROR: 0x3, FRAME_SIZE_ERROR: 0x6, ENHANCE_YOUR_CALM: 0xb } as const;

/** The largest frame payload a client accepts before it says otherwise (RFC 9113 §4.2). */
export const DEFAULT_FRAME_PAYLOAD = 16_384;
const DEFAULT_WINDOW = 65_535;
const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;

export type Frame = RawFrame;

export function frameBytes(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.allocUnsafe(9 + payload.length);
  out.writeUIntBE(payload.length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  payload.copy(out, 9);
  return out;
}

/** An HPACK integer (RFC 7541 §5.1) whose first byte carries `high` above a `prefixBits`-bit prefix. */
export function hpackInteger(value: number, prefixBits: number, high = 0): Buffer {
  const max = 2 ** prefixBits - 1;
  if (value < max) return Buffer.from([high | value]);
  const bytes = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A literal field without indexing, name and value raw (RFC 7541 §6.2.2): no table, no Huffman. */
export function literalField(name: string, value: string): Buffer {
  const n = Buffer.from(name, 'latin1');
  const v = Buffer.from(value, 'latin1');
  return Buffer.concat([Buffer.from([0x00]), hpackInteger(n.length, 7), n, hpackInteger(v.length, 7), v]);
}

/** A literal field with incremental indexing and a new name (§6.2.1): it joins the peer's dynamic table. */
export function indexedLiteralField(name: string, value: string): Buffer {
  const n = Buffer.from(name, 'latin1');
  const v = Buffer.from(value, 'latin1');
  return Buffer.concat([Buffer.from([0x40]), hpackInteger(n.length, 7), n, hpackInteger(v.length, 7), v]);
}

export const headerBlock = (fields: ReadonlyArray<readonly [string, string]>): Buffer =>
  Buffer.concat(fields.map(([name, value]) => literalField(name, value)));

/** A header block as HEADERS and CONTINUATION frames of at most the default frame size. */
export function headerFrames(streamId: number, block: Buffer, endStream: boolean): Buffer {
  const frames: Buffer[] = [];
  for (let at = 0; at === 0 || at < block.length; at += DEFAULT_FRAME_PAYLOAD) {
    const part = block.subarray(at, at + DEFAULT_FRAME_PAYLOAD);
    const last = at + DEFAULT_FRAME_PAYLOAD >= block.length;
    const type = at === 0 ? FRAME.HEADERS : FRAME.CONTINUATION;
    const flags = (last ? FLAG.END_HEADERS : 0) | (at === 0 && endStream ? FLAG.END_STREAM : 0);
    frames.push(frameBytes(type, flags, streamId, part));
  }
  return Buffer.concat(frames);
}

export const u32 = (...values: number[]): Buffer => {
  const out = Buffer.allocUnsafe(4 * values.length);
  values.forEach((v, i) => out.writeUInt32BE(v, 4 * i));
  return out;
};

/** One client connection, as the server sees it. */
export class PeerConnection {
  /** The client's frames not yet taken by `nextFrame`, oldest first. */
  private readonly received: Frame[] = [];
  private waiters: Array<() => void> = [];
  private buffered: Buffer = Buffer.alloc(0);
  private prefaceSeen = false;
  private readonly frames = new FrameSplitter();
  /** The client's receive windows: what the server may still send, on the connection and per stream. */
  private connectionWindow = DEFAULT_WINDOW;
  private initialStreamWindow = DEFAULT_WINDOW;
  private readonly streamWindows = new Map<number, number>();
  /** Every frame type the client sent, counted. */
  readonly counts = new Map<number, number>();
  closedAt: number | null = null;
  /** Whether the client ended the connection (rather than this server, at the end of its script). */
  closedByClient = false;
  private destroyedByServer = false;
  readonly closed: Promise<void>;
  /** DATA payload bytes this server sent. */
  dataSent = 0;

  constructor(readonly socket: Socket, readonly index: number) {
    this.closed = new Promise((resolve) => {
      const done = () => {
        if (this.closedAt === null) this.closedByClient = !this.destroyedByServer;
        this.closedAt ??= Date.now();
        this.wake();
        resolve();
      };
      socket.on('close', done);
      socket.on('end', done);
      socket.on('error', done);
    });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    void this.send(frameBytes(FRAME.SETTINGS, 0, 0));
  }

  get isClosed(): boolean {
    return this.closedAt !== null;
  }

  /** Writes, and resolves once the socket takes more (false: the client closed the connection). */
  async send(bytes: Buffer): Promise<boolean> {
    if (this.isClosed || this.socket.destroyed) return false;
    if (this.socket.write(bytes)) return true;
    await Promise.race([once(this.socket, 'drain').catch(() => undefined), this.closed]);
    return !this.isClosed;
  }

  /** Stops reading the socket: the client's writes pile up on its side. */
  stopReading(): void {
    this.socket.pause();
  }

  /** The next frame from the client matching `wanted` (earlier ones are dropped), or null once it closed. */
  async nextFrame(wanted: (f: Frame) => boolean = () => true): Promise<Frame | null> {
    for (;;) {
      while (this.received.length > 0) {
        const next = this.received.shift()!;
        if (wanted(next)) return next;
      }
      if (this.isClosed) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The stream id of the client's next request. */
  async nextRequest(): Promise<number | null> {
    return (await this.nextFrame((f) => f.type === FRAME.HEADERS))?.streamId ?? null;
  }

  /** Waits for the client's next frame of any kind, or its close. */
  async anything(): Promise<void> {
    if (this.received.length === 0 && !this.isClosed) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** What DATA the server may send on `streamId` now. */
  window(streamId: number): number {
    return Math.min(this.connectionWindow, this.streamWindows.get(streamId) ?? this.initialStreamWindow);
  }

  /** Sends DATA frames of `payload`, as the client's windows allow, without ending the stream. */
  async sendData(streamId: number, payload: Buffer, endStream = false): Promise<boolean> {
    let at = 0;
    while (at < payload.length || (at === 0 && payload.length === 0)) {
      const room = Math.min(this.window(streamId), DEFAULT_FRAME_PAYLOAD, payload.length - at);
      if (room <= 0 && payload.length > 0) {
        if (this.isClosed) return false;
        await this.anything();
        continue;
      }
      const last = at + room >= payload.length;
      this.take(streamId, room);
      if (!(await this.send(frameBytes(FRAME.DATA, last && endStream ? FLAG.END_STREAM : 0, streamId, payload.subarray(at, at + room))))) return false;
      at += room;
      if (payload.length === 0) break;
    }
    return true;
  }

  /** The DATA the server sends counts against the client's windows. */
  take(streamId: number, bytes: number): void {
    this.connectionWindow -= bytes;
    this.streamWindows.set(streamId, (this.streamWindows.get(streamId) ?? this.initialStreamWindow) - bytes);
    this.dataSent += bytes;
  }

  /** Sends a PING and waits for its ACK: every frame the client wrote before reading the PING has arrived. */
  async roundTrip(): Promise<boolean> {
    const token = Buffer.from(`rt${Date.now() % 1e6}`.padEnd(8, '.').slice(0, 8), 'latin1');
    if (!(await this.send(frameBytes(FRAME.PING, 0, 0, token)))) return false;
    return (await this.nextFrame((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0 && f.payload.equals(token))) !== null;
  }

  destroy(): void {
    this.destroyedByServer = true;
    this.socket.destroy();
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    if (!this.prefaceSeen) {
      if (this.buffered.length < CLIENT_PREFACE.length) return;
      if (!this.buffered.subarray(0, CLIENT_PREFACE.length).equals(CLIENT_PREFACE)) return void this.socket.destroy();
      this.prefaceSeen = true;
      this.buffered = this.buffered.subarray(CLIENT_PREFACE.length);
    }
    const bytes = this.buffered;
    this.buffered = Buffer.alloc(0);
    for (const f of this.frames.push(bytes)) {
      this.follow(f);
      this.counts.set(f.type, (this.counts.get(f.type) ?? 0) + 1);
      this.received.push(f);
    }
    this.wake();
  }

  /** What a server does for every client without being told: acknowledge, and keep the windows. */
  private follow(f: Frame): void {
    if (f.type === FRAME.SETTINGS && !(f.flags & FLAG.ACK)) {
      for (let at = 0; at + 6 <= f.payload.length; at += 6) {
        if (f.payload.readUInt16BE(at) !== SETTINGS_INITIAL_WINDOW_SIZE) continue;
        const value = f.payload.readUInt32BE(at + 2);
        for (const [id, w] of this.streamWindows) this.streamWindows.set(id, w + value - this.initialStreamWindow);
        this.initialStreamWindow = value;
      }
      void this.send(frameBytes(FRAME.SETTINGS, FLAG.ACK, 0));
    } else if (f.type === FRAME.PING && !(f.flags & FLAG.ACK) && f.payload.length === 8) {
      void this.send(frameBytes(FRAME.PING, FLAG.ACK, 0, f.payload));
    } else if (f.type === FRAME.WINDOW_UPDATE && f.payload.length === 4) {
      const increment = f.payload.readUInt32BE(0) & 0x7fffffff;
      if (f.streamId === 0) this.connectionWindow += increment;
      else this.streamWindows.set(f.streamId, (this.streamWindows.get(f.streamId) ?? this.initialStreamWindow) + increment);
    }
  }
}

export interface MaliciousH2Server {
  transport: Transport;
  /** Where the CRI client connects (unix) … */
  socketPath: string;
  /** … or the API client (tls). */
  port: number;
  readonly connections: PeerConnection[];
  close(): Promise<void>;
}

/** Serving key and certificate for the TLS transport (the API tests' throw-away PKI). */
export interface ServingPem {
  serverKeyPem: string;
  serverCertPem: string;
}

/**
 * Starts a server whose every connection runs `script` (given the connection and its index, 0 for
 * the first). A script's rejection is the test's failure, reported by `close()`.
 */
export async function startMaliciousH2Server(
  transport: Transport, script: (peer: PeerConnection) => Promise<void>, pem?: ServingPem,
): Promise<MaliciousH2Server> {
  const connections: PeerConnection[] = [];
  const failures: unknown[] = [];
  const running: Array<Promise<void>> = [];
  const accept = (socket: Socket) => {
    socket.on('error', () => {});
    const peer = new PeerConnection(socket, connections.length);
    connections.push(peer);
    running.push(script(peer).catch((err: unknown) => void failures.push(err)).finally(() => peer.destroy()));
  };
  let server: net.Server;
  let dir = '';
  let socketPath = '';
  let port = 0;
  if (transport === 'unix') {
    dir = mkdtempSync(join(tmpdir(), 'kts-evil-h2-'));
    socketPath = join(dir, 'h2.sock');
    server = net.createServer(accept);
    server.listen(socketPath);
  } else {
    if (!pem) throw new Error('a TLS malicious server needs a serving key and certificate');
    server = tls.createServer({ key: pem.serverKeyPem, cert: pem.serverCertPem, ALPNProtocols: ['h2'] }, accept);
    server.listen(0, '127.0.0.1');
  }
  await once(server, 'listening');
  if (transport === 'tls') port = (server.address() as AddressInfo).port;
  return {
    transport, socketPath, port, connections,
    async close() {
      for (const peer of connections) peer.destroy();
      await Promise.all(running);
      await new Promise((done) => server.close(done));
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (failures.length > 0) throw failures[0];
    },
  };
}
