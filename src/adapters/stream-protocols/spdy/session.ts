/**
 * The server end of one SPDY/3.1 connection, after the HTTP upgrade: reads frames off the socket,
 * opens a SpdyStream for each SYN_STREAM the caller accepts (answering SYN_REPLY, with FIN when it
 * refuses, as the Go server refuses a stream), echoes PINGs, and says GOAWAY when it closes.
 *
 * Flow control is the socket's. kubectl's spdystream neither sends nor honours WINDOW_UPDATE (it
 * drops the frame unread) and waits on TCP alone, so SPDY/3.1 windows are ignored both ways: we
 * never stall on a window the client will not open. Memory stays bounded all the same: a stream
 * whose reader falls behind pauses the socket until it reads again (one slow stream holds up the
 * others, as spdystream's own frame queue does), and a write completes only once the socket has
 * taken it without passing its high-water mark.
 *
 * The idle timeout is Go's streamingConnectionIdleTimeout: no frame either way for that long resets
 * every stream and closes the connection.
 *
 * Why our own: npm's spdy and spdy-transport (the only SPDY implementations there) are unmaintained
 * and built around HTTP request/response streams for browsers, not spdystream's bare bidirectional
 * streams with headers; what kubectl needs is this small.
 */
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SpdyFrameReader } from './frame-reader.js';
import { encodeFrame, GoAwayStatus, RstStatus, SpdyFrameError, type SpdyFrame } from './frames.js';
import { HeaderCompressor, HeaderDecompressor } from './header-compression.js';
import { decodeHeaderBlock, encodeHeaderBlock, type SpdyHeaders } from './header-block.js';
import { SpdyStream, type StreamWire } from './stream.js';

/** Largest data frame we send: big enough to keep framing overhead negligible, small enough to interleave streams. */
const MAX_DATA_FRAME = 64 * 1024;

export interface SpdySessionLimits {
  /** No frame either way for this long closes the session; 0 never does. */
  idleTimeoutMs: number;
  /** Streams open at once; a SYN_STREAM beyond is refused with RST_STREAM REFUSED_STREAM. */
  maxConcurrentStreams: number;
  /** A header block that inflates to more than this ends the session. */
  maxHeaderBlockBytes: number;
  /** After our GOAWAY, how long the client has to hang up before the socket is destroyed. */
  closeGraceMs: number;
}

export const DEFAULT_SESSION_LIMITS: Omit<SpdySessionLimits, 'idleTimeoutMs'> = {
  maxConcurrentStreams: 1000,
  maxHeaderBlockBytes: 256 * 1024,
  closeGraceMs: 10_000,
};

/**
 * Decides on a new stream from its headers: a function to hand the open stream to, or undefined to
 * refuse it. Called before SYN_REPLY goes out, so whatever the handler writes follows the reply.
 */
export type StreamAcceptor = (headers: SpdyHeaders, streamId: number) => ((stream: SpdyStream) => void) | undefined;

interface Outgoing {
  frame: Buffer | Promise<Buffer>;
  done?: () => void;
}

export class SpdySession implements StreamWire {
  private readonly reader = new SpdyFrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor: HeaderDecompressor;
  private readonly streams = new Map<number, SpdyStream>();
  /** Streams whose readers are behind; the socket reads again once this is empty. */
  private readonly behind = new Set<SpdyStream>();
  private readonly inbox: SpdyFrame[] = [];
  private handlingInbox = false;
  private readonly outbox: Outgoing[] = [];
  private awaitingFrame = false;
  private drainWaiters: Array<() => void> = [];
  private lastStreamId = 0;
  private goneAway = false;
  private closing = false;
  private peerEnded = false;
  private hungUp = false;
  private ended = false;
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly ended$ = new AbortController();

  constructor(
    private readonly socket: Duplex,
    head: Buffer,
    private readonly accept: StreamAcceptor,
    private readonly limits: SpdySessionLimits,
  ) {
    this.decompressor = new HeaderDecompressor(limits.maxHeaderBlockBytes);
    // Keystrokes and echoes are tiny frames: no Nagle delay on them (Go's TCP conns default to this too).
    if (socket instanceof Socket) socket.setNoDelay(true);
    if (limits.idleTimeoutMs > 0) {
      this.idleTimer = setTimeout(() => this.idleTimedOut(), limits.idleTimeoutMs);
    }
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('drain', () => this.drained());
    // The client hung up: what it sent before still counts (a header block may be inflating), then it is over.
    socket.on('end', () => {
      this.peerEnded = true;
      if (!this.handlingInbox) this.destroy();
    });
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.destroy());
    if (head.length > 0) this.received(head);
  }

  /** Aborted once the session is over (closed by either side, failed or timed out). */
  get signal(): AbortSignal {
    return this.ended$.signal;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Ends the session politely: GOAWAY after everything already queued, then hang up. */
  close(): void {
    if (this.closing || this.ended) return;
    this.closing = true;
    this.enqueue({ frame: encodeFrame({ type: 'goAway', lastGoodStreamId: this.lastStreamId, status: GoAwayStatus.Ok }) });
    this.enqueue({ frame: Buffer.alloc(0), done: () => this.hangUp() });
  }

  /** Ends the session at once: every stream is gone, the socket destroyed. */
  destroy(): void {
    this.teardown();
    this.socket.destroy();
  }

  private teardown(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.graceTimer);
    for (const stream of [...this.streams.values()]) stream.sessionEnded();
    this.streams.clear();
    this.behind.clear();
    this.inbox.length = 0;
    this.outbox.length = 0;
    for (const waiter of this.drainWaiters.splice(0)) waiter();
    this.compressor.close();
    this.decompressor.close();
    this.ended$.abort();
  }

  // --- StreamWire: what streams ask of the session ---

  sendData(stream: SpdyStream, data: Buffer, fin: boolean, done: () => void): void {
    if (this.ended || !this.streams.has(stream.id) || (data.length === 0 && !fin)) return done();
    for (let at = 0; at < data.length || (at === 0 && fin); at += MAX_DATA_FRAME) {
      const part = data.subarray(at, at + MAX_DATA_FRAME);
      const last = at + MAX_DATA_FRAME >= data.length;
      this.enqueue({ frame: encodeFrame({ type: 'data', streamId: stream.id, fin: fin && last, data: part }), done: last ? done : undefined });
      if (last) break;
    }
  }

  sendReset(stream: SpdyStream, status: number): void {
    if (!this.ended) this.enqueue({ frame: encodeFrame({ type: 'rstStream', streamId: stream.id, status }) });
  }

  readResumed(stream: SpdyStream): void {
    if (this.behind.delete(stream) && this.behind.size === 0 && !this.ended) this.socket.resume();
  }

  released(stream: SpdyStream): void {
    if (this.streams.get(stream.id) === stream) this.streams.delete(stream.id);
    this.readResumed(stream);
    if (this.goneAway && this.streams.size === 0) this.close();
  }

  // --- reading ---

  private received(chunk: Buffer): void {
    if (this.ended) return;
    this.idleTimer?.refresh();
    let frames: SpdyFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      return this.fail(error);
    }
    this.inbox.push(...frames);
    void this.handleInbox();
  }

  /** Frames are handled one at a time, in order: a header block must wait for the ones before it. */
  private async handleInbox(): Promise<void> {
    if (this.handlingInbox) return;
    this.handlingInbox = true;
    try {
      while (this.inbox.length > 0 && !this.ended) {
        const frame = this.inbox.shift()!;
        const pending = this.handle(frame);
        if (pending) await pending;
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.handlingInbox = false;
    }
    if (this.peerEnded) this.destroy();
  }

  private handle(frame: SpdyFrame): Promise<void> | undefined {
    switch (frame.type) {
      case 'synStream':
        return this.decompressor.decompress(frame.headerBlock).then((block) => this.opened(frame.streamId, frame.fin, frame.unidirectional, decodeHeaderBlock(block)));
      case 'synReply':
      case 'headers':
        // Never expected from a client of ours, but the block must still go through the shared context.
        return this.decompressor.decompress(frame.headerBlock).then(() => undefined);
      case 'data':
        return this.dataReceived(frame.streamId, frame.data, frame.fin);
      case 'rstStream':
        this.streams.get(frame.streamId)?.receiveReset();
        return undefined;
      case 'ping':
        // Odd ids are the client's own pings, to be echoed; even ones would answer ours, and we send none.
        if (frame.id % 2 === 1) this.enqueue({ frame: encodeFrame(frame) });
        return undefined;
      case 'goAway':
        this.goneAway = true;
        if (this.streams.size === 0) this.close();
        return undefined;
      case 'settings':
      case 'windowUpdate':
      case 'unknown':
        return undefined;
    }
  }

  private opened(streamId: number, fin: boolean, unidirectional: boolean, headers: SpdyHeaders): void {
    if (this.ended) return;
    if (streamId === 0 || streamId % 2 === 0 || streamId <= this.lastStreamId) {
      this.enqueue({ frame: encodeFrame({ type: 'rstStream', streamId, status: RstStatus.ProtocolError }) });
      return;
    }
    this.lastStreamId = streamId;
    if (this.goneAway || this.closing || this.streams.size >= this.limits.maxConcurrentStreams) {
      this.enqueue({ frame: encodeFrame({ type: 'rstStream', streamId, status: RstStatus.RefusedStream }) });
      return;
    }
    const handler = this.accept(headers, streamId);
    this.enqueue({ frame: this.compressor.compress(encodeHeaderBlock({})).then((block) => encodeFrame({ type: 'synReply', streamId, fin: !handler, headerBlock: block })) });
    if (!handler) return;
    const stream = new SpdyStream(streamId, headers, this, { remoteFinished: fin, localFinished: unidirectional });
    this.streams.set(streamId, stream);
    handler(stream);
  }

  private dataReceived(streamId: number, data: Buffer, fin: boolean): undefined {
    const stream = this.streams.get(streamId);
    // Data for a stream we refused or already forgot is dropped, as spdystream drops it; so is all
    // data once we have hung up.
    if (!stream || this.hungUp) return undefined;
    if (data.length > 0 && !stream.receiveData(data)) {
      this.behind.add(stream);
      this.socket.pause();
    }
    if (fin) stream.receiveFin();
    return undefined;
  }

  // --- writing ---

  private enqueue(item: Outgoing): void {
    // After the hang-up nothing more can be written (a RST for a stream freed meanwhile is moot).
    if (this.ended || this.hungUp) return item.done?.();
    this.outbox.push(item);
    this.flush();
  }

  /** Writes queued frames in order; a frame still being compressed holds back everything after it. */
  private flush(): void {
    while (this.outbox.length > 0 && !this.ended) {
      const head = this.outbox[0]!;
      if (head.frame instanceof Promise) {
        if (this.awaitingFrame) return;
        this.awaitingFrame = true;
        head.frame.then((bytes) => {
          this.awaitingFrame = false;
          head.frame = bytes;
          this.flush();
        }, (error: unknown) => this.fail(error));
        return;
      }
      this.outbox.shift();
      if (head.frame.length > 0 && !this.hungUp) {
        this.socket.write(head.frame);
        this.idleTimer?.refresh();
      }
      if (head.done) {
        if (this.socket.writableNeedDrain) this.drainWaiters.push(head.done);
        else head.done();
      }
    }
  }

  private drained(): void {
    for (const waiter of this.drainWaiters.splice(0)) waiter();
  }

  // --- ending ---

  private hangUp(): void {
    if (this.ended) return;
    this.hungUp = true;
    // Nothing the client still sends matters now; read on (dropping data) so its hang-up is seen.
    this.behind.clear();
    this.socket.resume();
    this.socket.end();
    this.graceTimer = setTimeout(() => this.destroy(), this.limits.closeGraceMs);
  }

  private idleTimedOut(): void {
    for (const stream of [...this.streams.values()]) stream.destroy();
    this.close();
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    const status = error instanceof SpdyFrameError ? error.goAwayStatus : GoAwayStatus.InternalError;
    this.closing = true;
    // Say why, then stop: nothing queued after a broken frame can be trusted to make sense.
    this.teardown();
    this.socket.end(encodeFrame({ type: 'goAway', lastGoodStreamId: this.lastStreamId, status }));
    const grace = setTimeout(() => this.socket.destroy(), this.limits.closeGraceMs);
    this.socket.once('close', () => clearTimeout(grace));
  }
}
