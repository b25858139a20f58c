/**
 * The SPDY frame reader against reads cut anywhere: every split point of a run of small frames,
 * byte by byte, and a 16 MiB frame whose first byte comes alone, which must cost one copy of the
 * frame, not one copy of everything held on every read.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SpdyFrameReader } from '../../../../src/adapters/stream-protocols/spdy/frame-reader.js';
import { encodeFrame, MAX_FRAME_PAYLOAD, type SpdyFrame } from '../../../../src/adapters/stream-protocols/spdy/frames.js';
import { copiedBytes } from '../../../support/copied-bytes.js';

const SMALL: SpdyFrame[] = [
  { type: 'data', streamId: 1, fin: false, data: Buffer.from('hello') },
  { type: 'synStream', streamId: 3, associatedStreamId: 0, priority: 2, slot: 0, fin: false, unidirectional: true, headerBlock: Buffer.from([1, 2, 3]) },
  { type: 'ping', id: 7 },
  { type: 'data', streamId: 3, fin: true, data: Buffer.alloc(0) },
  { type: 'settings', clear: true, entries: [{ flags: 1, id: 4, value: 100 }] },
  { type: 'rstStream', streamId: 1, status: 5 },
  { type: 'headers', streamId: 3, fin: false, headerBlock: Buffer.alloc(0) },
  { type: 'windowUpdate', streamId: 3, delta: 65536 },
  { type: 'goAway', lastGoodStreamId: 3, status: 0 },
];
const WIRE = Buffer.concat(SMALL.map(encodeFrame));

function readAll(pieces: Buffer[]): { frames: SpdyFrame[]; pending: number } {
  const reader = new SpdyFrameReader();
  const frames = pieces.flatMap((piece) => reader.push(piece));
  return { frames, pending: reader.pendingBytes };
}

/** One large data frame whose payload is a known pattern, and the sha256 of that payload. */
function bigDataFrame(streamId: number, size: number): { wire: Buffer; digest: string } {
  const data = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 4096) data.writeUInt32BE((i * 2654435761) >>> 0, i);
  return { wire: encodeFrame({ type: 'data', streamId, fin: false, data }), digest: createHash('sha256').update(data).digest('hex') };
}

/** The first byte alone, then 64 KiB reads: the shape of the attack. */
function firstByteThenBlocks(wire: Buffer): Buffer[] {
  const pieces = [wire.subarray(0, 1)];
  for (let at = 1; at < wire.length; at += 64 * 1024) pieces.push(wire.subarray(at, at + 64 * 1024));
  return pieces;
}

describe('SpdyFrameReader', () => {
  it('reads the same frames however one read is split, at every byte', () => {
    for (let cut = 0; cut <= WIRE.length; cut++) {
      const { frames, pending } = readAll([WIRE.subarray(0, cut), WIRE.subarray(cut)]);
      expect(frames, `split at byte ${cut}`).toEqual(SMALL);
      expect(pending).toBe(0);
    }
  });

  it('reads the same frames split at every pair of points', () => {
    for (let a = 0; a <= WIRE.length; a += 3) {
      for (let b = a; b <= WIRE.length; b += 5) {
        expect(readAll([WIRE.subarray(0, a), WIRE.subarray(a, b), WIRE.subarray(b)]).frames, `split at ${a} and ${b}`).toEqual(SMALL);
      }
    }
  });

  it('reads the same frames fed one byte at a time, each frame when its last byte comes', () => {
    const reader = new SpdyFrameReader();
    const seen: SpdyFrame[] = [];
    const ends = new Set<number>();
    let end = 0;
    for (const f of SMALL) ends.add((end += encodeFrame(f).length));
    for (let i = 0; i < WIRE.length; i++) {
      const got = reader.push(WIRE.subarray(i, i + 1));
      expect(got.length, `after byte ${i + 1}`).toBe(ends.has(i + 1) ? 1 : 0);
      seen.push(...got);
    }
    expect(seen).toEqual(SMALL);
    expect(reader.pendingBytes).toBe(0);
  });

  it('holds what does not make a frame yet, and counts it', () => {
    const reader = new SpdyFrameReader();
    const first = encodeFrame(SMALL[0]!).length;
    expect(reader.push(WIRE.subarray(0, first - 1))).toEqual([]);
    expect(reader.pendingBytes).toBe(first - 1);
    expect(reader.push(WIRE.subarray(first - 1, first + 3))).toEqual([SMALL[0]]);
    expect(reader.pendingBytes).toBe(3);
  });

  it('copies a 16 MiB frame sent first byte alone, then in 64 KiB reads, at most twice', async () => {
    const { wire, digest } = bigDataFrame(1, MAX_FRAME_PAYLOAD);
    const pieces = firstByteThenBlocks(wire);
    let frames: SpdyFrame[] = [];
    const copied = await copiedBytes(() => (frames = readAll(pieces).frames));
    expect(frames).toHaveLength(1);
    const frame = frames[0]!;
    if (frame.type !== 'data') throw new Error(`read a ${frame.type} frame`);
    expect(frame.data.length).toBe(MAX_FRAME_PAYLOAD);
    expect(createHash('sha256').update(frame.data).digest('hex')).toBe(digest);
    expect(copied).toBeLessThanOrEqual(2 * wire.length);
  });

  it('copies 12 frames of 4 MiB, each first byte alone at the end of a read, at most twice', async () => {
    const one = bigDataFrame(1, 4 * 1024 * 1024);
    const wire = Buffer.concat(Array.from({ length: 12 }, () => one.wire));
    // Reads that straddle frames: each frame's first byte lands at the end of a read, alone.
    const pieces: Buffer[] = [];
    for (let at = 0; at < wire.length;) {
      const frameEnd = (Math.floor(at / one.wire.length) + 1) * one.wire.length;
      const next = Math.min(at + 64 * 1024, frameEnd === wire.length ? wire.length : frameEnd + 1);
      pieces.push(wire.subarray(at, next));
      at = next;
    }
    let count = 0;
    const copied = await copiedBytes(() => (count = readAll(pieces).frames.length));
    expect(count).toBe(12);
    expect(copied).toBeLessThanOrEqual(2 * wire.length);
  });
});
