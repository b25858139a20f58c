/**
 * The attach session's reader of the shim's output frames: the same frames whatever the reads,
 * split at every byte, and a large frame trickled in costs one copy of it, not one per read.
 */
import { describe, expect, it } from 'vitest';
import { AttachOutputReader } from '../../../../src/adapters/embedded-runtime/streaming/attach-session.js';
import { copiedBytes } from '../../../support/copied-bytes.js';

function frame(stream: number, data: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = stream;
  header.writeUInt32BE(data.length, 1);
  return Buffer.concat([header, data]);
}

const FRAMES = [
  { stream: 1, data: Buffer.from('out one\n') },
  { stream: 2, data: Buffer.from('err\n') },
  { stream: 1, data: Buffer.alloc(0) },
  { stream: 1, data: Buffer.from('x') },
];
const WIRE = Buffer.concat(FRAMES.map((f) => frame(f.stream, f.data)));

describe('AttachOutputReader', () => {
  it('reads the same frames however the reads split them, at every byte and byte by byte', () => {
    for (let cut = 0; cut <= WIRE.length; cut++) {
      const reader = new AttachOutputReader();
      expect([...reader.push(WIRE.subarray(0, cut)), ...reader.push(WIRE.subarray(cut))], `split at ${cut}`).toEqual(FRAMES);
    }
    const reader = new AttachOutputReader();
    const bytewise = Array.from(WIRE).flatMap((_, i) => reader.push(WIRE.subarray(i, i + 1)));
    expect(bytewise).toEqual(FRAMES);
  });

  it('copies a 16 MiB frame sent first byte alone, then in 64 KiB reads, at most twice', async () => {
    const data = Buffer.alloc(16 * 1024 * 1024, 7);
    const wire = frame(1, data);
    const reader = new AttachOutputReader();
    const got: Buffer[] = [];
    const copied = await copiedBytes(() => {
      got.push(...reader.push(wire.subarray(0, 1)).map((f) => f.data));
      for (let at = 1; at < wire.length; at += 64 * 1024) got.push(...reader.push(wire.subarray(at, at + 64 * 1024)).map((f) => f.data));
    });
    expect(got).toHaveLength(1);
    expect(got[0]!.equals(data)).toBe(true);
    expect(copied).toBeLessThanOrEqual(2 * wire.length);
  });
});
