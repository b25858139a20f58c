/**
 * The chunk queue behind the stream readers: bytes come out in order whatever the chunks they went
 * in as, a peek leaves them held, and taking more than is held is an error rather than a short read.
 */
import { describe, expect, it } from 'vitest';
import { ChunkQueue } from '../../../src/adapters/stream-protocols/chunk-queue.js';

const BYTES = Buffer.from(Array.from({ length: 40 }, (_, i) => i));

describe('ChunkQueue', () => {
  it('gives back the bytes in order, for every split of the input and every size taken', () => {
    for (let cut = 0; cut <= BYTES.length; cut++) {
      for (let size = 1; size <= BYTES.length; size++) {
        const queue = new ChunkQueue();
        queue.push(BYTES.subarray(0, cut));
        queue.push(BYTES.subarray(cut));
        const out: Buffer[] = [];
        while (queue.length >= size) {
          expect(queue.peek(size)).toEqual(BYTES.subarray(40 - queue.length, 40 - queue.length + size));
          out.push(queue.take(size));
        }
        out.push(queue.take(queue.length));
        expect(Buffer.concat(out), `cut at ${cut}, taken ${size} at a time`).toEqual(BYTES);
        expect(queue.length).toBe(0);
      }
    }
  });

  it('reads one byte at a time in and many out across thousands of chunks', () => {
    const big = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
    const queue = new ChunkQueue();
    const out: Buffer[] = [];
    for (let i = 0; i < big.length; i++) {
      queue.push(big.subarray(i, i + 1));
      if (queue.length >= 3001) out.push(queue.take(3001));
    }
    out.push(queue.take(queue.length));
    expect(Buffer.concat(out)).toEqual(big);
  });

  it('hands out a view, not a copy, when one chunk holds what is taken', () => {
    const chunk = Buffer.from('abcdef');
    const queue = new ChunkQueue();
    queue.push(chunk);
    const taken = queue.take(4);
    expect(taken.buffer).toBe(chunk.buffer);
    expect(taken.toString()).toBe('abcd');
    expect(queue.take(2).toString()).toBe('ef');
  });

  it('refuses to peek or take more than it holds', () => {
    const queue = new ChunkQueue();
    queue.push(Buffer.from('abc'));
    expect(() => queue.take(4)).toThrow('cannot take 4 bytes from a queue holding 3');
    expect(() => queue.peek(4)).toThrow('cannot take 4 bytes from a queue holding 3');
    expect(queue.length).toBe(3);
  });
});
