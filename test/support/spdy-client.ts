/**
 * A small SPDY/3.1 client for tests: it upgrades an HTTP connection as kubectl does (POST with
 * Connection/Upgrade and X-Stream-Protocol-Version), opens streams with headers, writes and reads
 * them with half-close, resets them, pings, and shows every frame the server sent. It uses the
 * server's frame codec and header compression, so it checks the session logic, not the codec; the
 * kubectl interop test checks the codec against Go's.
 *
 * Reading is bounded like the server's: a stream whose reader is behind pauses the socket, so a
 * test can show memory stays flat over a large transfer.
 */
import { connect, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { SpdyFrameReader } from '../../src/adapters/stream-protocols/spdy/frame-reader.js';
import { encodeFrame, type SpdyFrame } from '../../src/adapters/stream-protocols/spdy/frames.js';
import { HeaderCompressor, HeaderDecompressor } from '../../src/adapters/stream-protocols/spdy/header-compression.js';
import { decodeHeaderBlock, encodeHeaderBlock } from '../../src/adapters/stream-protocols/spdy/header-block.js';

export interface UpgradeAnswer {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

export class SpdyClientStream extends Duplex {
  /** Resolves with the SYN_REPLY's FIN flag (true: the server refused the stream). */
  readonly replied: Promise<{ fin: boolean }>;
  resolveReply!: (reply: { fin: boolean }) => void;
  resetStatus: number | undefined;
  remoteFin = false;

  constructor(readonly id: number, private readonly client: SpdyClient) {
    super({ allowHalfOpen: true });
    this.replied = new Promise((resolve) => (this.resolveReply = resolve));
  }

  receive(data: Buffer, fin: boolean): void {
    if (data.length > 0 && !this.push(data)) this.client.behind(this);
    if (fin && !this.remoteFin) {
      this.remoteFin = true;
      this.push(null);
    }
  }

  receiveReset(status: number): void {
    this.resetStatus = status;
    this.destroy();
  }

  /** Sends RST_STREAM CANCEL and forgets the stream. */
  reset(): void {
    this.client.send({ type: 'rstStream', streamId: this.id, status: 5 });
    this.destroy();
  }

  override _read(): void {
    this.client.caughtUp(this);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.client.sendData(this.id, chunk, false, callback);
  }

  override _final(callback: () => void): void {
    this.client.sendData(this.id, Buffer.alloc(0), true, callback);
  }
}

export class SpdyClient {
  readonly frames: SpdyFrame[] = [];
  readonly pings = new Map<number, () => void>();
  goAway: { lastGoodStreamId: number; status: number } | undefined;
  readonly closed: Promise<void>;
  private readonly reader = new SpdyFrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor(1 << 20);
  private readonly streams = new Map<number, SpdyClientStream>();
  private readonly slow = new Set<SpdyClientStream>();
  private nextId = 1;
  private inbox: SpdyFrame[] = [];
  private handling = false;
  private writeChain: Promise<void> = Promise.resolve();
  private hungUp = false;
  private resolveClosed!: () => void;

  constructor(readonly socket: Socket, head: Buffer, readonly protocol: string | undefined) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', () => undefined);
    // Frames already read are still handled (a header block may be inflating) before everything goes.
    socket.once('close', () => {
      this.hungUp = true;
      if (!this.handling) this.release();
    });
    if (head.length > 0) this.received(head);
  }

  /** Opens a stream (the SYN_STREAM goes out in order with everything else sent). */
  openStream(headers: Record<string, string>, options: { fin?: boolean; id?: number } = {}): SpdyClientStream {
    // A given id is for protocol tests (a reused or even id); otherwise ids grow by two, as spdystream's do.
    const id = options.id ?? this.nextId;
    if (options.id === undefined) this.nextId += 2;
    const stream = new SpdyClientStream(id, this);
    stream.on('error', () => undefined);
    this.streams.set(id, stream);
    const block = encodeHeaderBlock(Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])));
    this.sendOrdered(this.compressor.compress(block).then((headerBlock) => encodeFrame({
      type: 'synStream', streamId: id, associatedStreamId: 0, priority: 0, slot: 0, fin: options.fin ?? false, unidirectional: false, headerBlock,
    })));
    return stream;
  }

  /** Sends a PING with an odd id; resolves when the server echoes it. */
  ping(id: number): Promise<void> {
    return new Promise((resolve) => {
      this.pings.set(id, resolve);
      this.send({ type: 'ping', id });
    });
  }

  send(frame: SpdyFrame): void {
    this.sendOrdered(Promise.resolve(encodeFrame(frame)));
  }

  /** Raw bytes, for malformed-input tests. */
  sendRaw(bytes: Buffer): void {
    this.sendOrdered(Promise.resolve(bytes));
  }

  sendData(streamId: number, data: Buffer, fin: boolean, done: () => void): void {
    this.sendOrdered(Promise.resolve(encodeFrame({ type: 'data', streamId, fin, data })), done);
  }

  /** GOAWAY then hang up, as spdystream's Close does. */
  async close(): Promise<void> {
    this.send({ type: 'goAway', lastGoodStreamId: 0, status: 0 });
    await this.writeChain;
    this.socket.end();
    await this.closed;
  }

  behind(stream: SpdyClientStream): void {
    this.slow.add(stream);
    this.socket.pause();
  }

  caughtUp(stream: SpdyClientStream): void {
    if (this.slow.delete(stream) && this.slow.size === 0) this.socket.resume();
  }

  private sendOrdered(frame: Promise<Buffer>, done?: () => void): void {
    this.writeChain = this.writeChain.then(async () => {
      const bytes = await frame;
      if (this.socket.destroyed) return done?.();
      if (!this.socket.write(bytes)) await new Promise<void>((resolve) => {
        const finish = () => { this.socket.off('drain', finish); this.socket.off('close', finish); resolve(); };
        this.socket.once('drain', finish);
        this.socket.once('close', finish);
      });
      done?.();
    });
  }

  private received(chunk: Buffer): void {
    this.inbox.push(...this.reader.push(chunk));
    void this.handleInbox();
  }

  private async handleInbox(): Promise<void> {
    if (this.handling) return;
    this.handling = true;
    while (this.inbox.length > 0) {
      const frame = this.inbox.shift()!;
      if (frame.type !== 'data') this.frames.push(frame);
      switch (frame.type) {
        case 'synReply': {
          decodeHeaderBlock(await this.decompressor.decompress(frame.headerBlock));
          const stream = this.streams.get(frame.streamId);
          stream?.resolveReply({ fin: frame.fin });
          if (frame.fin) stream?.receive(Buffer.alloc(0), true);
          break;
        }
        case 'synStream':
        case 'headers':
          await this.decompressor.decompress(frame.headerBlock);
          break;
        case 'data':
          this.streams.get(frame.streamId)?.receive(frame.data, frame.fin);
          break;
        case 'rstStream':
          this.streams.get(frame.streamId)?.receiveReset(frame.status);
          break;
        case 'ping':
          this.pings.get(frame.id)?.();
          break;
        case 'goAway':
          this.goAway = { lastGoodStreamId: frame.lastGoodStreamId, status: frame.status };
          break;
        default:
          break;
      }
    }
    this.handling = false;
    if (this.hungUp) this.release();
  }

  /** After the hang-up: streams that got their FIN keep what they carried until it is read; the rest are gone. */
  private release(): void {
    this.resolveClosed();
    for (const s of this.streams.values()) if (!s.remoteFin) s.destroy();
    this.compressor.close();
    this.decompressor.close();
  }
}

export interface UpgradeRequest {
  port: number;
  path?: string;
  protocols?: string[];
  /** Extra request header lines, e.g. to leave out the Upgrade header. */
  headers?: Record<string, string>;
  upgrade?: boolean;
  /** The connection to upgrade (e.g. TLS to a kubelet); a plain TCP connection to 127.0.0.1:port by default. */
  connect?: () => Socket;
}

/** Sends the upgrade request; a 101 gives a client, anything else the answer as it came. */
export function dialSpdy(request: UpgradeRequest): Promise<{ answer: UpgradeAnswer; client?: SpdyClient }> {
  return new Promise((resolve, reject) => {
    const socket = request.connect?.() ?? connect(request.port, '127.0.0.1');
    const lines = [`POST ${request.path ?? '/'} HTTP/1.1`, `Host: 127.0.0.1:${request.port}`];
    if (request.upgrade !== false) lines.push('Connection: Upgrade', 'Upgrade: SPDY/3.1');
    for (const p of request.protocols ?? []) lines.push(`X-Stream-Protocol-Version: ${p}`);
    for (const [k, v] of Object.entries(request.headers ?? {})) lines.push(`${k}: ${v}`);
    lines.push('Content-Length: 0', '', '');
    socket.write(lines.join('\r\n'));
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...headerLines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(statusLine!.split(' ')[1]);
      const headers: Record<string, string[]> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        (headers[name] ??= []).push(line.slice(colon + 1).trim());
      }
      const rest = buffered.subarray(end + 4);
      if (status === 101) {
        socket.off('data', onData);
        resolve({ answer: { status, headers, body: '' }, client: new SpdyClient(socket, rest, headers['x-stream-protocol-version']?.[0]) });
        return;
      }
      const length = Number(headers['content-length']?.[0] ?? 0);
      if (rest.length < length) return;
      socket.off('data', onData);
      socket.destroy();
      resolve({ answer: { status, headers, body: rest.subarray(0, length).toString('utf8') } });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}
