/**
 * Bytes read off a socket, held as the chunks they came in until a whole message can be taken.
 *
 * Why not `held = Buffer.concat([held, chunk])` on each read: a peer that sends a large message a
 * little at a time (its first byte alone, then the rest) would make every read copy everything held
 * so far, quadratic in the message's size. Here a read only appends its chunk; a message is copied
 * at most once, when it is taken, and not at all when one chunk holds it.
 */
const EMPTY = Buffer.alloc(0);

export class ChunkQueue {
  private chunks: Buffer[] = [];
  /** Index of the first chunk still held: taking from the front never shifts the array. */
  private first = 0;
  private held = 0;

  /** Bytes held. */
  get length(): number {
    return this.held;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.held += chunk.length;
  }

  /**
   * The first `n` bytes, left in the queue: a view when the first chunk holds them, else a copy of
   * those `n` bytes only. For a message's small fixed header.
   */
  peek(n: number): Buffer {
    this.expectHeld(n);
    if (n === 0) return EMPTY;
    const head = this.chunks[this.first]!;
    if (head.length >= n) return head.subarray(0, n);
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    for (let i = this.first; filled < n; i++) {
      filled += this.chunks[i]!.copy(out, filled, 0, Math.min(this.chunks[i]!.length, n - filled));
    }
    return out;
  }

  /** Removes the first `n` bytes and returns them: a view when one chunk holds them, else one copy. */
  take(n: number): Buffer {
    this.expectHeld(n);
    if (n === 0) return EMPTY;
    this.held -= n;
    const head = this.chunks[this.first]!;
    if (head.length >= n) {
      this.dropFront(n);
      return head.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[this.first]!;
      const part = Math.min(chunk.length, n - filled);
      filled += chunk.copy(out, filled, 0, part);
      this.dropFront(part);
    }
    return out;
  }

  /** Forgets `n` bytes of the first chunk (all of them: the chunk itself). */
  private dropFront(n: number): void {
    const head = this.chunks[this.first]!;
    if (n < head.length) {
      this.chunks[this.first] = head.subarray(n);
      return;
    }
    this.chunks[this.first++] = EMPTY; // the chunk's memory is free to go now, not at the next compaction
    if (this.first === this.chunks.length) {
      this.chunks = [];
      this.first = 0;
    } else if (this.first >= 1024 && this.first * 2 >= this.chunks.length) {
      // Reclaim the slots of chunks already taken, rarely enough to stay linear overall.
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
  }

  private expectHeld(n: number): void {
    if (n > this.held) throw new RangeError(`cannot take ${n} bytes from a queue holding ${this.held}`);
  }
}
