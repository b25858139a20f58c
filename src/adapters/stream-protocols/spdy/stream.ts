/**
 * One SPDY stream as a Node Duplex: what the client sends is the readable side, what we write goes
 * out as data frames, `end()` sends the FIN that half-closes our side. The session owns the wire; a
 * stream only tells it what to send through a StreamWire, so each side can be tested and read alone.
 *
 * A stream destroyed before both sides sent their FIN (by its user, or because the client went away)
 * tells the client with RST_STREAM CANCEL, as spdystream's Reset does; one the client reset or that
 * died with its session sends nothing more.
 */
import { Duplex } from 'node:stream';
import { RstStatus } from './frames.js';
import type { SpdyHeaders } from './header-block.js';

/** What a stream needs from its session. */
export interface StreamWire {
  sendData(stream: SpdyStream, data: Buffer, fin: boolean, done: () => void): void;
  sendReset(stream: SpdyStream, status: number): void;
  /** The stream's reader wants more: the session may read from the socket again. */
  readResumed(stream: SpdyStream): void;
  /** The stream is gone (fully closed, reset or destroyed): forget it. */
  released(stream: SpdyStream): void;
}

export class SpdyStream extends Duplex {
  private remoteFin = false;
  private localFin = false;
  private silent = false;

  constructor(
    readonly id: number,
    readonly headers: SpdyHeaders,
    private readonly wire: StreamWire,
    options: { remoteFinished: boolean; localFinished: boolean },
  ) {
    super({ allowHalfOpen: true });
    if (options.localFinished) {
      this.localFin = true;
      // A unidirectional stream: we may not send on it, so our side is done from the start.
      super.end();
    }
    if (options.remoteFinished) this.receiveFin();
  }

  /** Data from the client; false when the reader is behind (the session then stops reading). */
  receiveData(data: Buffer): boolean {
    if (this.remoteFin || this.destroyed) return true;
    return this.push(data);
  }

  receiveFin(): void {
    if (this.remoteFin) return;
    this.remoteFin = true;
    this.push(null);
  }

  /** The client reset the stream: it is over at once, without a word back. */
  receiveReset(): void {
    this.silent = true;
    this.destroy();
  }

  /** The session ended (socket closed, idle timeout): nothing can be sent any more. */
  sessionEnded(): void {
    this.silent = true;
    this.destroy();
  }

  get remoteFinished(): boolean {
    return this.remoteFin;
  }

  override _read(): void {
    this.wire.readResumed(this);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.wire.sendData(this, chunk, false, () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.localFin) return callback();
    this.localFin = true;
    this.wire.sendData(this, Buffer.alloc(0), true, () => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.silent && !(this.localFin && this.remoteFin)) this.wire.sendReset(this, RstStatus.Cancel);
    this.wire.released(this);
    callback(error);
  }
}
