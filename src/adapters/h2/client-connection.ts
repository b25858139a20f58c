/**
 * A client's HTTP/2 connection over a socket, for requests whose whole body is known when they are
 * made and whose answers are read whole: gRPC's unary calls. It writes the frames itself and reads
 * the peer's with HPACK of its own (hpack.ts).
 *
 * Why not `node:http2`: each of its streams is a Duplex with its own events, async resource and
 * header objects, several times the CPU of the frames it sends. A kubelet makes hundreds of small
 * calls to its runtime in a burst of pod starts and two a second at rest.
 *
 * What of HTTP/2 it keeps (RFC 9113): the preface and SETTINGS both ways; stream ids in order;
 * the peer's limits on concurrent streams and frame size; flow control both ways (the peer's
 * windows are waited for; ours are opened wide at the start, as the answers are bounded by their
 * reader); CONTINUATION; PING answered; RST_STREAM and GOAWAY both ways. What it leaves out: server
 * push (refused in SETTINGS), priorities, TLS, upgrade from HTTP/1.1.
 */
import type { Socket } from 'node:net';
import {
  CLIENT_PREFACE, DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW_SIZE, ErrorCode, FRAME_HEADER_BYTES, FrameFlag, FrameType,
  MAX_WINDOW_SIZE, Setting, frame, goAwayFrame, rstStreamFrame, settingsFrame, unpadded, windowUpdateFrame, writeFrameHeader,
} from './frames.js';
import { HpackDecoder, encodeHeaderBlock } from './hpack.js';

/** A header block's fields, in their order, names in lower case. */
export type HeaderFields = Array<[string, string]>;

/** What a stream's owner hears. Exactly one of `onEnd` and `onFailure` ends it, once. */
export interface StreamHandler {
  /** The answer's headers, then (for gRPC) its trailers. */
  onHeaders(fields: HeaderFields): void;
  onData(chunk: Buffer): void;
  /** The peer ended its side: the answer is whole. */
  onEnd(): void;
  /** Reset by the peer, refused by its GOAWAY, or the connection failed. */
  onFailure(reason: StreamFailure): void;
}

export interface StreamFailure {
  message: string;
  /** The peer's RST_STREAM code, when it reset the stream. */
  rstCode?: number;
  /** The peer never processed the request (its GOAWAY came first, or it refused the stream): it may be sent again. */
  unprocessed?: boolean;
  /** What ended the connection, when the owner ended it with an error (`destroy`). */
  cause?: Error;
}

export interface ClientStream {
  /** Resets the stream (CANCEL); nothing more of it reaches its handler. */
  cancel(): void;
}

export interface ClientConnectionOptions {
  /**
   * Whether the socket holds the process open while a stream is open (and only then), as a
   * request in flight does. Otherwise the owner decides (a call's own timer may hold it instead).
   */
  holdsProcessWhileActive?: boolean;
  /**
   * Our receive window, for each stream and (at least 64 KiB) for the connection: the widest there
   * is unless a test wants it given back often. Half of it read, it is given back.
   */
  receiveWindow?: number;
  /** The connection is gone: closed, failed or drained after GOAWAY. */
  onClosed?: () => void;
}

interface OpenStream {
  id: number;
  handler: StreamHandler;
  /** Request bytes not yet sent: the body, while the peer's windows hold it back. */
  pending: Buffer | null;
  sendWindow: number;
  /** Bytes of DATA read since its window was last given back: a long watch outlives even the widest window. */
  receivedSinceRefill: number;
}

/** Stream ids are 31 bits, odd on the client's side. */
const LAST_CLIENT_STREAM_ID = 2 ** 31 - 1;
/** SETTINGS and PING: the flag of an answer, the same bit as END_STREAM. */
const ACK = FrameFlag.EndStream;
/** HPACK's dynamic table size update to 0 (RFC 7541 §6.3). */
const TABLE_SIZE_ZERO = Buffer.from([0x20]);
/** The most a header block may take before it is decoded: answers here carry a few short fields. */
const MAX_HEADER_BLOCK_BYTES = 1024 * 1024;
/** The largest frame size a peer may announce. */
const MAX_FRAME_SIZE = 2 ** 24 - 1;

export class ClientConnection {
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, OpenStream>();
  /** Requests waiting for the peer's limit on concurrent streams. */
  private readonly waiting: Array<{ stream: OpenStream; headerBlock: Buffer }> = [];
  private nextStreamId = 1;
  private peerMaxConcurrent = Infinity;
  private peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
  private peerInitialWindow = DEFAULT_WINDOW_SIZE;
  private connectionSendWindow = DEFAULT_WINDOW_SIZE;
  private receivedSinceRefill = 0;
  private readonly streamRefillAt: number;
  private readonly connectionRefillAt: number;
  private buffered: Buffer | null = null;
  /** A header block arriving in CONTINUATION frames: its stream, its bytes so far and its END_STREAM. */
  private partialBlock: { streamId: number; chunks: Buffer[]; bytes: number; endStream: boolean } | null = null;
  /** The answers awaited to our PINGs, in the order sent. */
  private readonly pings: Array<(err: Error | null) => void> = [];
  private corked = false;
  /** When the peer last sent anything (Date.now()). */
  lastReadAt = Date.now();
  private draining = false;
  private closedReason: string | null = null;

  constructor(private readonly socket: Socket, private readonly options: ClientConnectionOptions) {
    if (options.holdsProcessWhileActive) socket.unref();
    const receiveWindow = options.receiveWindow ?? MAX_WINDOW_SIZE;
    const connectionWindow = Math.max(receiveWindow, DEFAULT_WINDOW_SIZE);
    this.streamRefillAt = Math.ceil(receiveWindow / 2);
    this.connectionRefillAt = Math.ceil(connectionWindow / 2);
    socket.on('data', (chunk: Buffer) => this.onBytes(chunk));
    socket.on('error', (err: Error) => this.fail(err.message));
    socket.on('end', () => this.fail('the peer closed the connection'));
    socket.on('close', () => this.fail('the connection closed'));
    this.write(CLIENT_PREFACE);
    this.write(settingsFrame([
      [Setting.EnablePush, 0],
      [Setting.InitialWindowSize, receiveWindow],
    ]));
    if (connectionWindow > DEFAULT_WINDOW_SIZE) this.write(windowUpdateFrame(0, connectionWindow - DEFAULT_WINDOW_SIZE));
  }

  /** Whether a new request may still go on this connection. */
  get usable(): boolean {
    return this.closedReason === null && !this.draining && this.nextStreamId <= LAST_CLIENT_STREAM_ID;
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** Streams open or waiting to open. */
  get activeStreams(): number {
    return this.streams.size + this.waiting.length;
  }

  /** Sends a PING; `onAnswer` hears its ACK, or the connection's end. */
  ping(onAnswer: (err: Error | null) => void): void {
    if (this.closedReason !== null) return onAnswer(new Error(this.closedReason));
    this.pings.push(onAnswer);
    this.write(frame(FrameType.Ping, 0, 0, Buffer.alloc(8)));
  }

  /**
   * Sends a request: its header fields (pseudo-headers first) and its whole body, which ends the
   * request's side. Throws when the connection can no longer take one (see `usable`).
   */
  request(fields: ReadonlyArray<readonly [string, string]>, body: Buffer, handler: StreamHandler): ClientStream {
    if (!this.usable) throw new Error(this.closedReason ?? 'the connection takes no new streams');
    const headerBlock = encodeHeaderBlock(fields);
    if (headerBlock.length > this.peerMaxFrameSize) throw new Error(`the request's headers take ${headerBlock.length} bytes, over the peer's frame size`);
    const stream: OpenStream = { id: 0, handler, pending: body, sendWindow: this.peerInitialWindow, receivedSinceRefill: 0 };
    if (this.streams.size >= this.peerMaxConcurrent) this.waiting.push({ stream, headerBlock });
    else this.open(stream, headerBlock);
    if (this.options.holdsProcessWhileActive && this.activeStreams === 1) this.socket.ref();
    return { cancel: () => this.cancel(stream) };
  }

  /** Ends the connection at once: open streams fail with `err` as their cause. */
  destroy(err: Error): void {
    this.fail(err.message, err);
    this.socket.destroy();
  }

  /** Sends GOAWAY and closes the socket; open streams fail. */
  close(): void {
    if (this.closedReason !== null) return;
    this.write(goAwayFrame(0, ErrorCode.NoError));
    this.fail('the connection was closed');
    this.socket.end();
  }

  private open(stream: OpenStream, encoded: Buffer): void {
    stream.id = this.nextStreamId;
    this.nextStreamId += 2;
    // The first block sets our encoder's table to 0 bytes: it never indexes, and this way it keeps to
    // whatever table size the peer's SETTINGS allow, whenever they come.
    const headerBlock = stream.id === 1 ? Buffer.concat([TABLE_SIZE_ZERO, encoded]) : encoded;
    this.streams.set(stream.id, stream);
    const flags = FrameFlag.EndHeaders | (stream.pending!.length === 0 ? FrameFlag.EndStream : 0);
    const headers = Buffer.allocUnsafe(FRAME_HEADER_BYTES + headerBlock.length);
    writeFrameHeader(headers, 0, headerBlock.length, FrameType.Headers, flags, stream.id);
    headerBlock.copy(headers, FRAME_HEADER_BYTES);
    this.write(headers);
    if (stream.pending!.length === 0) stream.pending = null;
    else this.sendBody(stream);
  }

  /** As much of the stream's body as the windows let go, in frames the peer takes. */
  private sendBody(stream: OpenStream): void {
    let body = stream.pending;
    while (body) {
      const size = Math.min(body.length, stream.sendWindow, this.connectionSendWindow, this.peerMaxFrameSize);
      if (size <= 0) break;
      const last = size === body.length;
      const data = Buffer.allocUnsafe(FRAME_HEADER_BYTES + size);
      writeFrameHeader(data, 0, size, FrameType.Data, last ? FrameFlag.EndStream : 0, stream.id);
      body.copy(data, FRAME_HEADER_BYTES, 0, size);
      this.write(data);
      stream.sendWindow -= size;
      this.connectionSendWindow -= size;
      body = last ? null : body.subarray(size);
    }
    stream.pending = body;
  }

  private cancel(stream: OpenStream): void {
    const queued = this.waiting.findIndex((w) => w.stream === stream);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.openWaiting();
      return;
    }
    if (this.streams.get(stream.id) !== stream) return;
    this.write(rstStreamFrame(stream.id, ErrorCode.Cancel));
    this.forget(stream.id);
  }

  private forget(id: number): void {
    this.streams.delete(id);
    this.openWaiting();
  }

  /** Opens the requests that waited for a stream to end, and ends a drained connection. */
  private openWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxConcurrent && this.usable) {
      const next = this.waiting.shift()!;
      this.open(next.stream, next.headerBlock);
    }
    if (this.options.holdsProcessWhileActive && this.activeStreams === 0) this.socket.unref();
    if (this.draining && this.streams.size === 0) {
      this.fail('the peer sent GOAWAY');
      this.socket.end();
    }
  }

  /** Writes within one turn of the event loop go out together. */
  private write(bytes: Buffer): void {
    if (this.socket.destroyed) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(bytes);
  }

  private onBytes(chunk: Buffer): void {
    this.lastReadAt = Date.now();
    let bytes = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    this.buffered = null;
    let offset = 0;
    while (this.closedReason === null && bytes.length - offset >= FRAME_HEADER_BYTES) {
      const length = (bytes[offset]! << 16) | (bytes[offset + 1]! << 8) | bytes[offset + 2]!;
      if (length > DEFAULT_MAX_FRAME_SIZE) return this.connectionError(ErrorCode.FrameSizeError, `a frame of ${length} bytes, over the frame size we allow`);
      if (bytes.length - offset < FRAME_HEADER_BYTES + length) break;
      const type = bytes[offset + 3]!;
      const flags = bytes[offset + 4]!;
      const streamId = bytes.readUInt32BE(offset + 5) & LAST_CLIENT_STREAM_ID;
      const payload = bytes.subarray(offset + FRAME_HEADER_BYTES, offset + FRAME_HEADER_BYTES + length);
      offset += FRAME_HEADER_BYTES + length;
      this.onFrame(type, flags, streamId, payload);
    }
    if (offset < bytes.length && this.closedReason === null) {
      // Kept as a copy: the rest of the chunk is not held alive for a few bytes of it.
      bytes = bytes.subarray(offset);
      this.buffered = Buffer.from(bytes);
    }
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.partialBlock && (type !== FrameType.Continuation || streamId !== this.partialBlock.streamId)) {
      return this.connectionError(ErrorCode.ProtocolError, 'a header block was interrupted by another frame');
    }
    switch (type) {
      case FrameType.Data: return this.onDataFrame(flags, streamId, payload);
      case FrameType.Headers: {
        const block = unpadded(payload, flags, flags & FrameFlag.Priority ? 5 : 0);
        if (!block) return this.connectionError(ErrorCode.ProtocolError, 'a HEADERS frame\'s padding is longer than the frame');
        return this.onHeaderBlockPart(streamId, block, flags & FrameFlag.EndHeaders ? 'last' : 'first', (flags & FrameFlag.EndStream) !== 0);
      }
      case FrameType.Continuation:
        if (!this.partialBlock) return this.connectionError(ErrorCode.ProtocolError, 'a CONTINUATION frame with no header block to continue');
        return this.onHeaderBlockPart(streamId, payload, flags & FrameFlag.EndHeaders ? 'last' : 'more', this.partialBlock.endStream);
      case FrameType.RstStream: {
        const stream = this.streams.get(streamId);
        if (!stream) return;
        const rstCode = payload.length >= 4 ? payload.readUInt32BE(0) : ErrorCode.ProtocolError;
        this.forget(streamId);
        return stream.handler.onFailure({ message: `the peer reset the stream (code ${rstCode})`, rstCode, unprocessed: rstCode === ErrorCode.RefusedStream });
      }
      case FrameType.Settings: return this.onSettings(flags, payload);
      case FrameType.PushPromise: return this.connectionError(ErrorCode.ProtocolError, 'a PUSH_PROMISE, though push was refused');
      case FrameType.Ping:
        if (!(flags & ACK)) this.write(frame(FrameType.Ping, ACK, 0, payload));
        else this.pings.shift()?.(null);
        return;
      case FrameType.GoAway: return this.onGoAway(payload);
      case FrameType.WindowUpdate: return this.onWindowUpdate(streamId, payload);
      default:
        // PRIORITY, and frame types this client does not know: ignored, as the protocol asks.
        return;
    }
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    // Every DATA frame counts against our connection window, whatever became of its stream.
    this.receivedSinceRefill += payload.length;
    if (this.receivedSinceRefill >= this.connectionRefillAt) {
      this.write(windowUpdateFrame(0, this.receivedSinceRefill));
      this.receivedSinceRefill = 0;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.receivedSinceRefill += payload.length;
    if (stream.receivedSinceRefill >= this.streamRefillAt && !(flags & FrameFlag.EndStream)) {
      this.write(windowUpdateFrame(streamId, stream.receivedSinceRefill));
      stream.receivedSinceRefill = 0;
    }
    const data = unpadded(payload, flags, 0);
    if (!data) return this.connectionError(ErrorCode.ProtocolError, 'a DATA frame\'s padding is longer than the frame');
    if (data.length > 0) stream.handler.onData(data);
    // The handler may have cancelled the stream on what it read.
    if (flags & FrameFlag.EndStream && this.streams.get(streamId) === stream) this.endStream(stream);
  }

  private onHeaderBlockPart(streamId: number, part: Buffer, position: 'first' | 'more' | 'last', endStream: boolean): void {
    if (position === 'first') {
      this.partialBlock = { streamId, chunks: [part], bytes: part.length, endStream };
      return;
    }
    let block = part;
    if (this.partialBlock) {
      this.partialBlock.chunks.push(part);
      this.partialBlock.bytes += part.length;
      if (this.partialBlock.bytes > MAX_HEADER_BLOCK_BYTES) return this.connectionError(ErrorCode.ProtocolError, `a header block over ${MAX_HEADER_BLOCK_BYTES} bytes`);
      if (position === 'more') return;
      block = Buffer.concat(this.partialBlock.chunks);
      this.partialBlock = null;
    }
    let fields: HeaderFields;
    try {
      // Decoded even for a stream we are done with: the decoder's table follows every block.
      fields = this.decoder.decode(block);
    } catch (err) {
      return this.connectionError(ErrorCode.CompressionError, `an undecodable header block: ${(err as Error).message}`);
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.handler.onHeaders(fields);
    if (endStream && this.streams.get(streamId) === stream) this.endStream(stream);
  }

  private endStream(stream: OpenStream): void {
    this.forget(stream.id);
    stream.handler.onEnd();
  }

  private onSettings(flags: number, payload: Buffer): void {
    if (flags & ACK) return;
    if (payload.length % 6 !== 0) return this.connectionError(ErrorCode.FrameSizeError, 'a SETTINGS frame not made of whole settings');
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === Setting.MaxConcurrentStreams) this.peerMaxConcurrent = value;
      else if (id === Setting.MaxFrameSize) {
        if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_FRAME_SIZE) return this.connectionError(ErrorCode.ProtocolError, `a frame size of ${value}, outside HTTP/2's range`);
        this.peerMaxFrameSize = value;
      }
      else if (id === Setting.InitialWindowSize) {
        if (value > MAX_WINDOW_SIZE) return this.connectionError(ErrorCode.FlowControlError, 'an initial window over the largest there is');
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      }
      // The peer's header table size bounds an encoder's table; ours keeps none.
    }
    this.write(frame(FrameType.Settings, ACK, 0));
    this.flushBodies();
    this.openWaiting();
  }

  private onWindowUpdate(streamId: number, payload: Buffer): void {
    const increment = payload.length >= 4 ? payload.readUInt32BE(0) & MAX_WINDOW_SIZE : 0;
    if (streamId === 0) {
      this.connectionSendWindow += increment;
      this.flushBodies();
      return;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    stream.sendWindow += increment;
    this.sendBody(stream);
  }

  private flushBodies(): void {
    for (const stream of this.streams.values()) if (stream.pending) this.sendBody(stream);
  }

  private onGoAway(payload: Buffer): void {
    const lastStreamId = payload.length >= 8 ? payload.readUInt32BE(0) & LAST_CLIENT_STREAM_ID : 0;
    const code = payload.length >= 8 ? payload.readUInt32BE(4) : ErrorCode.ProtocolError;
    this.draining = true;
    this.options.onClosed?.();
    // Streams above the last one the peer took were never seen by it; those below may still be answered.
    for (const [id, stream] of [...this.streams]) {
      if (id > lastStreamId) {
        this.streams.delete(id);
        stream.handler.onFailure({ message: `the peer sent GOAWAY (code ${code}) before taking the stream`, unprocessed: true });
      }
    }
    for (const { stream } of this.waiting.splice(0)) stream.handler.onFailure({ message: `the peer sent GOAWAY (code ${code})`, unprocessed: true });
    this.openWaiting();
  }

  private connectionError(code: ErrorCode, message: string): void {
    // A client's GOAWAY names the last stream the server opened: none, as push is refused.
    this.write(goAwayFrame(0, code));
    this.fail(`HTTP/2 connection error: ${message}`);
    this.socket.destroy();
  }

  /** The connection is over: every stream still open, or waiting to open, fails with the reason. */
  private fail(reason: string, cause?: Error): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    const failed = [...this.streams.values(), ...this.waiting.splice(0).map((w) => w.stream)];
    this.streams.clear();
    this.buffered = null;
    this.partialBlock = null;
    this.options.onClosed?.();
    for (const answer of this.pings.splice(0)) answer(cause ?? new Error(reason));
    for (const stream of failed) stream.handler.onFailure(cause ? { message: reason, cause } : { message: reason });
  }
}
