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
 * windows are waited for; ours are given back as each stream's reader consumes what it was
 * handed); CONTINUATION; PING answered; RST_STREAM and GOAWAY both ways. What it leaves out: server
 * push (refused in SETTINGS), priorities, TLS, upgrade from HTTP/1.1.
 *
 * What it takes from a peer is bounded as nghttp2 and Go bound it (limits.ts): header lists,
 * CONTINUATION frames, answers queued behind a socket the peer does not read, invalid or useless
 * frames, and whatever a stream's reader has not consumed.
 */
import type { Socket } from 'node:net';
import {
  CLIENT_PREFACE, DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW_SIZE, ErrorCode, FRAME_HEADER_BYTES, FrameFlag, FrameType,
  MAX_WINDOW_SIZE, Setting, frame, goAwayFrame, rstStreamFrame, settingsFrame, unpadded, windowUpdateFrame, writeFrameHeader,
} from './frames.js';
import { GlitchBudget } from './glitch-budget.js';
import { HpackDecoder, encodeHeaderBlock } from './hpack.js';
import {
  CONNECTION_RECEIVE_WINDOW, GLITCH_BURST, GLITCH_RATE_PER_SECOND, MAX_CONTINUATION_FRAMES, MAX_HEADER_LIST_BYTES, MAX_HEADER_LIST_FIELDS,
  MAX_QUEUED_CONTROL_FRAMES, MAX_SETTINGS_PER_FRAME, STREAM_RECEIVE_WINDOW,
} from './limits.js';

/** A header block's fields, in their order, names in lower case. */
export type HeaderFields = Array<[string, string]>;

/** What a stream's owner hears. Exactly one of `onEnd` and `onFailure` ends it, once. */
export interface StreamHandler {
  /** The answer's headers, then (for gRPC) its trailers. */
  onHeaders(fields: HeaderFields): void;
  /** Part of the answer's body: the peer may send more only as the stream's `consumed` gives it back. */
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
  /**
   * The peer never processed the request (its GOAWAY came first, it refused the stream, or the
   * connection ran out of stream ids before sending it): it may be sent again on a new connection.
   */
  unprocessed?: boolean;
  /** What ended the connection, when the owner ended it with an error (`destroy`). */
  cause?: Error;
}

export interface ClientStream {
  /** Resets the stream (CANCEL); nothing more of it reaches its handler. */
  cancel(): void;
  /**
   * The reader has taken `bytes` more of what `onData` handed it: that much window goes back to the
   * peer. Bytes never consumed hold the peer back, at most the stream's receive window of them.
   */
  consumed(bytes: number): void;
}

export interface ClientConnectionOptions {
  /**
   * Whether the socket holds the process open while a stream is open (and only then), as a
   * request in flight does. Otherwise the owner decides (a call's own timer may hold it instead).
   */
  holdsProcessWhileActive?: boolean;
  /** Our receive window for each stream (STREAM_RECEIVE_WINDOW); half of it consumed, it is given back. */
  receiveWindow?: number;
  /** Our receive window for the connection (CONNECTION_RECEIVE_WINDOW), at least HTTP/2's 65,535. */
  connectionReceiveWindow?: number;
  /** The last stream id this connection may use: HTTP/2's 2^31-1, unless a test wants it to run out. */
  lastStreamId?: number;
  /** The connection is gone: closed, failed or drained after GOAWAY. */
  onClosed?: () => void;
}

interface OpenStream {
  id: number;
  handler: StreamHandler;
  /** Request bytes not yet sent: the body, while the peer's windows hold it back. */
  pending: Buffer | null;
  sendWindow: number;
  /** What the peer may still send on the stream. */
  receiveWindow: number;
  /** Bytes handed to the handler that its reader has not consumed yet. */
  unconsumed: number;
  /** Bytes consumed since the stream's window was last given back. */
  consumedSinceRefill: number;
  /** The peer ended its side: no window goes back for the stream. */
  remoteEnded: boolean;
}

/** Stream ids are 31 bits, odd on the client's side. */
const LAST_CLIENT_STREAM_ID = 2 ** 31 - 1;
/** SETTINGS and PING: the flag of an answer, the same bit as END_STREAM. */
const ACK = FrameFlag.EndStream;
/** HPACK's dynamic table size update to 0 (RFC 7541 §6.3). */
const TABLE_SIZE_ZERO = Buffer.from([0x20]);
/** How long the GOAWAY of a connection error has to leave before its socket is destroyed. */
const GOAWAY_GRACE_MS = 1000;
/** The largest frame size a peer may announce. */
const MAX_FRAME_SIZE = 2 ** 24 - 1;

function windowOption(name: string, value: number, least: number): number {
  if (!Number.isInteger(value) || value < least || value > MAX_WINDOW_SIZE) {
    throw new RangeError(`${name} must be an integer from ${least} to ${MAX_WINDOW_SIZE}, not ${value}`);
  }
  return value;
}

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
  private readonly streamReceiveWindow: number;
  /** What the peer may still send on the connection, and what was consumed since it was last given back. */
  private connectionReceiveWindow: number;
  private connectionConsumedSinceRefill = 0;
  private readonly streamRefillAt: number;
  private readonly connectionRefillAt: number;
  private readonly lastStreamId: number;
  /** Frames we answered with while the socket's buffer was full; reset when it drains. */
  private queuedControlFrames = 0;
  private readonly glitches = new GlitchBudget(GLITCH_BURST, GLITCH_RATE_PER_SECOND);
  private buffered: Buffer | null = null;
  /** A header block arriving in CONTINUATION frames: its stream, its parts so far and its END_STREAM. */
  private partialBlock: { streamId: number; chunks: Buffer[]; endStream: boolean } | null = null;
  /** The answers awaited to our PINGs, in the order sent. */
  private readonly pings: Array<(err: Error | null) => void> = [];
  private corked = false;
  /** When the peer last sent anything (Date.now()). */
  lastReadAt = Date.now();
  private draining = false;
  private closedReason: string | null = null;

  constructor(private readonly socket: Socket, private readonly options: ClientConnectionOptions) {
    const receiveWindow = windowOption('receiveWindow', options.receiveWindow ?? STREAM_RECEIVE_WINDOW, 1);
    const connectionWindow = windowOption('connectionReceiveWindow', options.connectionReceiveWindow ?? CONNECTION_RECEIVE_WINDOW, DEFAULT_WINDOW_SIZE);
    const lastStreamId = options.lastStreamId ?? LAST_CLIENT_STREAM_ID;
    if (!Number.isInteger(lastStreamId) || lastStreamId < 1 || lastStreamId > LAST_CLIENT_STREAM_ID || lastStreamId % 2 === 0) {
      throw new RangeError(`the last stream id must be an odd integer from 1 to ${LAST_CLIENT_STREAM_ID}, not ${lastStreamId}`);
    }
    this.lastStreamId = lastStreamId;
    this.streamReceiveWindow = receiveWindow;
    this.connectionReceiveWindow = connectionWindow;
    this.streamRefillAt = Math.ceil(receiveWindow / 2);
    this.connectionRefillAt = Math.ceil(connectionWindow / 2);
    if (options.holdsProcessWhileActive) socket.unref();
    socket.on('data', (chunk: Buffer) => this.onBytes(chunk));
    socket.on('drain', () => this.onDrain());
    socket.on('error', (err: Error) => this.fail(err.message));
    socket.on('end', () => this.fail('the peer closed the connection'));
    socket.on('close', () => this.fail('the connection closed'));
    this.write(CLIENT_PREFACE);
    this.write(settingsFrame([
      [Setting.EnablePush, 0],
      [Setting.InitialWindowSize, receiveWindow],
      [Setting.MaxHeaderListSize, MAX_HEADER_LIST_BYTES],
    ]));
    if (connectionWindow > DEFAULT_WINDOW_SIZE) this.write(windowUpdateFrame(0, connectionWindow - DEFAULT_WINDOW_SIZE));
  }

  /** Whether a new request may still go on this connection. */
  get usable(): boolean {
    return this.closedReason === null && !this.draining && this.nextStreamId <= this.lastStreamId;
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
    const stream: OpenStream = {
      id: 0, handler, pending: body, sendWindow: this.peerInitialWindow,
      receiveWindow: this.streamReceiveWindow, unconsumed: 0, consumedSinceRefill: 0, remoteEnded: false,
    };
    if (this.streams.size >= this.peerMaxConcurrent) this.waiting.push({ stream, headerBlock });
    else this.open(stream, headerBlock);
    if (this.options.holdsProcessWhileActive && this.activeStreams === 1) this.socket.ref();
    return { cancel: () => this.cancel(stream), consumed: (bytes) => this.consumed(stream, bytes) };
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
    // Out of stream ids: the owner opens a new connection for what comes next; this one closes once its streams end.
    if (this.nextStreamId > this.lastStreamId) this.options.onClosed?.();
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

  /** As much of the stream's body as the windows and the socket's buffer let go, in frames the peer takes. */
  private sendBody(stream: OpenStream): void {
    let body = stream.pending;
    while (body && !this.socket.writableNeedDrain) {
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
    this.writeControl(rstStreamFrame(stream.id, ErrorCode.Cancel));
    this.forget(stream);
  }

  private consumed(stream: OpenStream, bytes: number): void {
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`a stream's reader consumes a whole number of bytes, not ${bytes}`);
    // A stream that ended gave back what its reader never took when it ended (forget).
    if (this.streams.get(stream.id) !== stream) return;
    if (bytes > stream.unconsumed) throw new RangeError(`the reader consumed ${bytes} bytes, but only ${stream.unconsumed} were handed over unconsumed`);
    stream.unconsumed -= bytes;
    this.giveBack(stream, bytes);
  }

  /** Window back to the peer for `bytes` the stream's reader consumed (or nobody needs to). */
  private giveBack(stream: OpenStream, bytes: number): void {
    if (!stream.remoteEnded) {
      stream.consumedSinceRefill += bytes;
      if (stream.consumedSinceRefill >= this.streamRefillAt) {
        this.writeControl(windowUpdateFrame(stream.id, stream.consumedSinceRefill));
        stream.receiveWindow += stream.consumedSinceRefill;
        stream.consumedSinceRefill = 0;
      }
    }
    this.giveBackToConnection(bytes);
  }

  private giveBackToConnection(bytes: number): void {
    this.connectionConsumedSinceRefill += bytes;
    if (this.connectionConsumedSinceRefill >= this.connectionRefillAt) {
      this.writeControl(windowUpdateFrame(0, this.connectionConsumedSinceRefill));
      this.connectionReceiveWindow += this.connectionConsumedSinceRefill;
      this.connectionConsumedSinceRefill = 0;
    }
  }

  /** The stream is over: what its reader never consumed goes back to the connection, not held by it forever. */
  private forget(stream: OpenStream): void {
    this.streams.delete(stream.id);
    if (stream.unconsumed > 0) {
      this.giveBackToConnection(stream.unconsumed);
      stream.unconsumed = 0;
    }
    this.openWaiting();
  }

  /**
   * Opens the requests that waited for a stream to end, moves them off a connection out of stream
   * ids (failed unprocessed: the owner sends them on a new one), and ends a drained connection.
   */
  private openWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxConcurrent && this.usable) {
      const next = this.waiting.shift()!;
      this.open(next.stream, next.headerBlock);
    }
    const idsSpent = this.nextStreamId > this.lastStreamId;
    if (idsSpent && this.closedReason === null) {
      for (const { stream } of this.waiting.splice(0)) {
        stream.handler.onFailure({ message: 'the connection ran out of stream ids before the request was sent', unprocessed: true });
      }
    }
    if (this.options.holdsProcessWhileActive && this.activeStreams === 0) this.socket.unref();
    if (this.streams.size > 0 || this.closedReason !== null) return;
    if (this.draining) {
      this.fail('the peer sent GOAWAY');
      this.socket.end();
    } else if (idsSpent) {
      this.close();
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

  /**
   * Writes a frame that answers the peer's (an ACK, a window, a reset). Those written while the
   * socket's buffer is full are counted: a peer that sends without reading floods, and is cut off.
   */
  private writeControl(bytes: Buffer): void {
    if (this.socket.writableNeedDrain && ++this.queuedControlFrames > MAX_QUEUED_CONTROL_FRAMES) {
      this.fail(`HTTP/2 connection error: the peer does not read, and over ${MAX_QUEUED_CONTROL_FRAMES} answers to its frames are queued`);
      this.socket.destroy();
      return;
    }
    this.write(bytes);
  }

  private onDrain(): void {
    this.queuedControlFrames = 0;
    this.flushBodies();
  }

  /** An invalid or useless frame: within the budget it is dropped, past it the peer floods. */
  private glitch(what: string): void {
    if (!this.glitches.spend()) this.connectionError(ErrorCode.EnhanceYourCalm, `too many invalid or useless frames, the last ${what}`);
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
        if (streamId === 0) return this.connectionError(ErrorCode.ProtocolError, 'a HEADERS frame on stream 0');
        const block = unpadded(payload, flags, flags & FrameFlag.Priority ? 5 : 0);
        if (!block) return this.connectionError(ErrorCode.ProtocolError, 'a HEADERS frame\'s padding is longer than the frame');
        if (flags & FrameFlag.EndHeaders) return this.onHeaderBlock(streamId, block, (flags & FrameFlag.EndStream) !== 0);
        this.partialBlock = { streamId, chunks: [block], endStream: (flags & FrameFlag.EndStream) !== 0 };
        return;
      }
      case FrameType.Continuation: return this.onContinuation(flags, payload);
      case FrameType.RstStream: return this.onRstStream(streamId, payload);
      case FrameType.Settings: return this.onSettings(flags, streamId, payload);
      case FrameType.PushPromise: return this.connectionError(ErrorCode.ProtocolError, 'a PUSH_PROMISE, though push was refused');
      case FrameType.Ping: return this.onPing(flags, streamId, payload);
      case FrameType.GoAway: return this.onGoAway(streamId, payload);
      case FrameType.WindowUpdate: return this.onWindowUpdate(streamId, payload);
      case FrameType.Priority:
        // Priorities are not kept: a PRIORITY frame is of no use to this client.
        return this.glitch('a PRIORITY frame');
      default:
        // Frame types this client does not know: ignored, as the protocol asks.
        return;
    }
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.connectionError(ErrorCode.ProtocolError, 'a DATA frame on stream 0');
    // Every DATA frame, padding included, counts against the connection's window, whatever became of its stream.
    const length = payload.length;
    if (length > this.connectionReceiveWindow) {
      return this.connectionError(ErrorCode.FlowControlError, `a DATA frame of ${length} bytes, over the ${this.connectionReceiveWindow} left in the connection's window`);
    }
    this.connectionReceiveWindow -= length;
    const stream = this.streams.get(streamId);
    if (!stream) {
      this.giveBackToConnection(length);
      return this.glitch('a DATA frame for a stream that is not open');
    }
    if (length > stream.receiveWindow) {
      this.giveBackToConnection(length);
      return this.resetStream(stream, ErrorCode.FlowControlError, `a DATA frame of ${length} bytes, over the ${stream.receiveWindow} left in the stream's window`);
    }
    stream.receiveWindow -= length;
    const data = unpadded(payload, flags, 0);
    if (!data) return this.connectionError(ErrorCode.ProtocolError, 'a DATA frame\'s padding is longer than the frame');
    const endStream = (flags & FrameFlag.EndStream) !== 0;
    if (endStream) stream.remoteEnded = true;
    // Padding is nobody's to read: it goes back at once.
    if (data.length < length) this.giveBack(stream, length - data.length);
    if (data.length > 0) {
      stream.unconsumed += data.length;
      stream.handler.onData(data);
    } else if (!endStream) {
      this.glitch('an empty DATA frame that does not end its stream');
    }
    // The handler may have cancelled the stream on what it read.
    if (endStream && this.streams.get(streamId) === stream) this.endStream(stream);
  }

  private onContinuation(flags: number, payload: Buffer): void {
    const partial = this.partialBlock;
    if (!partial) return this.connectionError(ErrorCode.ProtocolError, 'a CONTINUATION frame with no header block to continue');
    partial.chunks.push(payload);
    // The HEADERS frame is the first part: more than this many after it is a flood, however small each.
    if (partial.chunks.length > MAX_CONTINUATION_FRAMES + 1) {
      return this.connectionError(ErrorCode.EnhanceYourCalm, `a header block continued over more than ${MAX_CONTINUATION_FRAMES} CONTINUATION frames`);
    }
    if (!(flags & FrameFlag.EndHeaders)) return;
    this.partialBlock = null;
    this.onHeaderBlock(partial.streamId, Buffer.concat(partial.chunks), partial.endStream);
  }

  private onHeaderBlock(streamId: number, block: Buffer, endStream: boolean): void {
    let fields: HeaderFields | string;
    try {
      // Decoded even for a stream we are done with, or a list over our limits: the decoder's table follows every block.
      fields = this.decoder.decodeWithin(block, MAX_HEADER_LIST_BYTES, MAX_HEADER_LIST_FIELDS);
    } catch (err) {
      return this.connectionError(ErrorCode.CompressionError, `an undecodable header block: ${(err as Error).message}`);
    }
    const stream = this.streams.get(streamId);
    if (!stream) return this.glitch('a header block for a stream that is not open');
    // Over a limit: the stream is reset and the connection goes on, as Go's transport answers it.
    if (typeof fields === 'string') return this.resetStream(stream, ErrorCode.ProtocolError, `the answer's headers are ${fields}, more than we take`);
    if (endStream) stream.remoteEnded = true;
    stream.handler.onHeaders(fields);
    if (endStream && this.streams.get(streamId) === stream) this.endStream(stream);
  }

  private endStream(stream: OpenStream): void {
    this.forget(stream);
    stream.handler.onEnd();
  }

  /** A stream error (RFC 9113 §5.4.2): the stream is reset with `code` and fails; the connection goes on. */
  private resetStream(stream: OpenStream, code: ErrorCode, message: string): void {
    this.writeControl(rstStreamFrame(stream.id, code));
    this.forget(stream);
    stream.handler.onFailure({ message: `HTTP/2 stream error: ${message}` });
  }

  private onRstStream(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) return this.connectionError(ErrorCode.FrameSizeError, `a RST_STREAM frame of ${payload.length} bytes, not 4`);
    if (streamId === 0) return this.connectionError(ErrorCode.ProtocolError, 'a RST_STREAM frame on stream 0');
    const stream = this.streams.get(streamId);
    if (!stream) return this.glitch('a RST_STREAM frame for a stream that is not open');
    const rstCode = payload.readUInt32BE(0);
    this.forget(stream);
    stream.handler.onFailure({ message: `the peer reset the stream (code ${rstCode})`, rstCode, unprocessed: rstCode === ErrorCode.RefusedStream });
  }

  private onPing(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.connectionError(ErrorCode.ProtocolError, `a PING frame on stream ${streamId}, not 0`);
    if (payload.length !== 8) return this.connectionError(ErrorCode.FrameSizeError, `a PING frame of ${payload.length} bytes, not 8`);
    if (!(flags & ACK)) return this.writeControl(frame(FrameType.Ping, ACK, 0, payload));
    const answer = this.pings.shift();
    if (answer) answer(null);
    else this.glitch('a PING answer with no PING of ours to answer');
  }

  private onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.connectionError(ErrorCode.ProtocolError, `a SETTINGS frame on stream ${streamId}, not 0`);
    if (flags & ACK) {
      if (payload.length !== 0) return this.connectionError(ErrorCode.FrameSizeError, `a SETTINGS acknowledgement with ${payload.length} bytes of payload`);
      return;
    }
    if (payload.length % 6 !== 0) return this.connectionError(ErrorCode.FrameSizeError, 'a SETTINGS frame not made of whole settings');
    if (payload.length / 6 > MAX_SETTINGS_PER_FRAME) {
      return this.connectionError(ErrorCode.EnhanceYourCalm, `a SETTINGS frame of ${payload.length / 6} settings, over the ${MAX_SETTINGS_PER_FRAME} we take`);
    }
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
        for (const stream of this.streams.values()) {
          stream.sendWindow += delta;
          if (stream.sendWindow > MAX_WINDOW_SIZE) return this.connectionError(ErrorCode.FlowControlError, `a new initial window takes stream ${stream.id}'s window over 2^31-1`);
        }
      }
      // The peer's header table size bounds an encoder's table; ours keeps none.
    }
    this.writeControl(frame(FrameType.Settings, ACK, 0));
    this.flushBodies();
    this.openWaiting();
  }

  private onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) return this.connectionError(ErrorCode.FrameSizeError, `a WINDOW_UPDATE frame of ${payload.length} bytes, not 4`);
    const increment = payload.readUInt32BE(0) & MAX_WINDOW_SIZE;
    if (streamId === 0) {
      if (increment === 0) return this.connectionError(ErrorCode.ProtocolError, 'a WINDOW_UPDATE of 0 for the connection');
      if (this.connectionSendWindow + increment > MAX_WINDOW_SIZE) {
        return this.connectionError(ErrorCode.FlowControlError, 'a WINDOW_UPDATE takes the connection\'s window over 2^31-1');
      }
      this.connectionSendWindow += increment;
      this.flushBodies();
      return;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return this.glitch('a WINDOW_UPDATE frame for a stream that is not open');
    if (increment === 0) return this.resetStream(stream, ErrorCode.ProtocolError, 'a WINDOW_UPDATE of 0 for the stream');
    if (stream.sendWindow + increment > MAX_WINDOW_SIZE) return this.resetStream(stream, ErrorCode.FlowControlError, 'a WINDOW_UPDATE takes the stream\'s window over 2^31-1');
    stream.sendWindow += increment;
    this.sendBody(stream);
  }

  private flushBodies(): void {
    for (const stream of this.streams.values()) if (stream.pending) this.sendBody(stream);
  }

  private onGoAway(streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.connectionError(ErrorCode.ProtocolError, `a GOAWAY frame on stream ${streamId}, not 0`);
    if (payload.length < 8) return this.connectionError(ErrorCode.FrameSizeError, `a GOAWAY frame of ${payload.length} bytes, under 8`);
    const lastStreamId = payload.readUInt32BE(0) & LAST_CLIENT_STREAM_ID;
    const code = payload.readUInt32BE(4);
    this.draining = true;
    this.options.onClosed?.();
    // Streams above the last one the peer took were never seen by it; those below may still be answered.
    for (const [id, stream] of [...this.streams]) {
      if (id > lastStreamId) {
        this.forget(stream);
        stream.handler.onFailure({ message: `the peer sent GOAWAY (code ${code}) before taking the stream`, unprocessed: true });
      }
    }
    for (const { stream } of this.waiting.splice(0)) stream.handler.onFailure({ message: `the peer sent GOAWAY (code ${code})`, unprocessed: true });
    this.openWaiting();
  }

  private connectionError(code: ErrorCode, message: string): void {
    // A client's GOAWAY names the last stream the server opened: none, as push is refused. It leaves
    // before the streams' owners hear of the failure (end() flushes what is corked), and a peer that
    // does not take it within the grace is cut anyway.
    this.socket.end(goAwayFrame(0, code));
    this.socket.once('finish', () => this.socket.destroy());
    setTimeout(() => this.socket.destroy(), GOAWAY_GRACE_MS).unref();
    this.fail(`HTTP/2 connection error: ${message}`);
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
