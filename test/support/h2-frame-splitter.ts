/**
 * The test peers' reader of raw HTTP/2 frames: bytes in as the socket gives them, whole frames out.
 * Each payload is a copy, so a frame kept by a test does not hold the chunk it came in. The client
 * preface is the caller's to take off first.
 */
export interface RawFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

const FRAME_HEADER_BYTES = 9;

export class FrameSplitter {
  private buffered: Buffer = Buffer.alloc(0);

  /** The frames `chunk` completes, in order. */
  push(chunk: Buffer): RawFrame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: RawFrame[] = [];
    while (this.buffered.length >= FRAME_HEADER_BYTES) {
      const length = this.buffered.readUIntBE(0, 3);
      if (this.buffered.length < FRAME_HEADER_BYTES + length) break;
      frames.push({
        type: this.buffered[3]!, flags: this.buffered[4]!, streamId: this.buffered.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(this.buffered.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length)),
      });
      this.buffered = this.buffered.subarray(FRAME_HEADER_BYTES + length);
    }
    return frames;
  }
}
