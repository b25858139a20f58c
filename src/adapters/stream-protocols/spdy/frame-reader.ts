/**
 * Cuts a byte stream into whole SPDY frames. Socket reads split and join frames arbitrarily, so
 * bytes are held until a frame is complete: as the chunks they came in (chunk-queue.ts), so a frame
 * sent a little at a time costs one copy when it completes, not one per read. What is held is at
 * most one frame (the 24-bit length bounds it) plus the rest of the last read.
 */
import { ChunkQueue } from '../chunk-queue.js';
import { announcedPayloadLength, decodeFrame, FRAME_HEADER_BYTES, type SpdyFrame } from './frames.js';

export class SpdyFrameReader {
  private readonly held = new ChunkQueue();
  /** Header and payload of the frame being waited for, once its header has come. */
  private frameBytes: number | undefined;

  /** Adds bytes read from the peer; returns the frames they complete, in order. */
  push(chunk: Buffer): SpdyFrame[] {
    this.held.push(chunk);
    const frames: SpdyFrame[] = [];
    for (;;) {
      if (this.frameBytes === undefined) {
        if (this.held.length < FRAME_HEADER_BYTES) break;
        this.frameBytes = FRAME_HEADER_BYTES + announcedPayloadLength(this.held.peek(FRAME_HEADER_BYTES));
      }
      if (this.held.length < this.frameBytes) break;
      const bytes = this.held.take(this.frameBytes);
      this.frameBytes = undefined;
      frames.push(decodeFrame(bytes));
    }
    return frames;
  }

  /** Bytes held that do not yet make a whole frame. */
  get pendingBytes(): number {
    return this.held.length;
  }
}
