/**
 * Cuts a byte stream into whole SPDY frames. Socket reads split and join frames arbitrarily, so
 * bytes are held until a frame is complete; chunks are kept as they came and copied only for a frame
 * that straddles them, which keeps a bulk transfer from copying every byte twice. What is held is at
 * most one frame (the 24-bit length bounds it) plus the rest of the last read.
 */
import { announcedPayloadLength, decodeFrame, FRAME_HEADER_BYTES, type SpdyFrame } from './frames.js';

export class SpdyFrameReader {
  private chunks: Buffer[] = [];
  private held = 0;

  /** Adds bytes read from the peer; returns the frames they complete, in order. */
  push(chunk: Buffer): SpdyFrame[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.held += chunk.length;
    }
    const frames: SpdyFrame[] = [];
    while (this.held >= FRAME_HEADER_BYTES) {
      const total = FRAME_HEADER_BYTES + announcedPayloadLength(this.peek(FRAME_HEADER_BYTES));
      if (this.held < total) break;
      frames.push(decodeFrame(this.take(total)));
    }
    return frames;
  }

  /** Bytes held that do not yet make a whole frame. */
  get pendingBytes(): number {
    return this.held;
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    return first.length >= n ? first.subarray(0, n) : Buffer.concat(this.chunks, this.held).subarray(0, n);
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    this.held -= n;
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    if (first.length === n) {
      this.chunks.shift();
      return first;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0]!;
      const part = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, part);
      filled += part;
      if (part === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(part);
    }
    return out;
  }
}
