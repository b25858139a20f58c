/**
 * The SPDY/3 frame codec: every frame type survives encode → split at any byte → decode, layouts the
 * draft fixes byte by byte are checked by hand, and broken layouts are refused rather than guessed at.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpdyFrameReader } from '../../../../src/adapters/stream-protocols/spdy/frame-reader.js';
import { decodeFrame, encodeFrame, SpdyFrameError, type SpdyFrame } from '../../../../src/adapters/stream-protocols/spdy/frames.js';
import { pushInPieces } from './collect.js';

const streamId = fc.integer({ min: 1, max: 0x7fffffff });
const u31 = fc.integer({ min: 0, max: 0x7fffffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));

const frame: fc.Arbitrary<SpdyFrame> = fc.oneof(
  fc.record({ type: fc.constant('data' as const), streamId, fin: fc.boolean(), data: bytes(300) }),
  fc.record({
    type: fc.constant('synStream' as const), streamId, associatedStreamId: u31, priority: fc.integer({ min: 0, max: 7 }),
    slot: fc.integer({ min: 0, max: 255 }), fin: fc.boolean(), unidirectional: fc.boolean(), headerBlock: bytes(100),
  }),
  fc.record({ type: fc.constant('synReply' as const), streamId, fin: fc.boolean(), headerBlock: bytes(100) }),
  fc.record({ type: fc.constant('headers' as const), streamId, fin: fc.boolean(), headerBlock: bytes(100) }),
  fc.record({ type: fc.constant('rstStream' as const), streamId, status: u32 }),
  fc.record({
    type: fc.constant('settings' as const), clear: fc.boolean(),
    entries: fc.array(fc.record({ flags: fc.integer({ min: 0, max: 255 }), id: fc.integer({ min: 0, max: 0xffffff }), value: u32 }), { maxLength: 5 }),
  }),
  fc.record({ type: fc.constant('ping' as const), id: u32 }),
  fc.record({ type: fc.constant('goAway' as const), lastGoodStreamId: u31, status: u32 }),
  fc.record({ type: fc.constant('windowUpdate' as const), streamId: u31, delta: u31 }),
);

describe('SPDY/3 frames', () => {
  it('round-trips every frame type, whole or cut into arbitrary reads', () => {
    fc.assert(fc.property(fc.array(frame, { minLength: 1, maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1 }), (frames, cuts) => {
      const wire = Buffer.concat(frames.map(encodeFrame));
      for (const f of frames) expect(decodeFrame(encodeFrame(f))).toEqual(f);
      const reader = new SpdyFrameReader();
      expect(pushInPieces(wire, cuts, (piece) => reader.push(piece))).toEqual(frames);
      expect(reader.pendingBytes).toBe(0);
    }), { numRuns: 300 });
  });

  it('lays out control and data frames as the draft says', () => {
    // Control bit, version 3, type 6 (PING); flags 0; length 4; the id.
    expect(encodeFrame({ type: 'ping', id: 7 }).toString('hex')).toBe('80030006' + '00000004' + '00000007');
    // Data: stream id with the control bit clear; FIN flag in the top byte of the second word.
    expect(encodeFrame({ type: 'data', streamId: 5, fin: true, data: Buffer.from('hi') }).toString('hex')).toBe('00000005' + '01000002' + '6869');
    // SYN_STREAM: stream id, associated id, priority in the top 3 bits, slot, then the block; UNIDIRECTIONAL is 0x02.
    expect(encodeFrame({ type: 'synStream', streamId: 1, associatedStreamId: 0, priority: 7, slot: 0, fin: false, unidirectional: true, headerBlock: Buffer.from([0xab]) })
      .toString('hex')).toBe('80030001' + '0200000b' + '00000001' + '00000000' + 'e000' + 'ab');
    expect(encodeFrame({ type: 'rstStream', streamId: 3, status: 5 }).toString('hex')).toBe('80030003' + '00000008' + '00000003' + '00000005');
    expect(encodeFrame({ type: 'goAway', lastGoodStreamId: 9, status: 0 }).toString('hex')).toBe('80030007' + '00000008' + '00000009' + '00000000');
    expect(encodeFrame({ type: 'windowUpdate', streamId: 1, delta: 65536 }).toString('hex')).toBe('80030009' + '00000008' + '00000001' + '00010000');
  });

  it('refuses another SPDY version, wrong fixed lengths and data on stream 0', () => {
    const ping = encodeFrame({ type: 'ping', id: 1 });
    const v2 = Buffer.from(ping);
    v2.writeUInt16BE(0x8002, 0);
    expect(() => decodeFrame(v2)).toThrow(SpdyFrameError);
    const longPing = Buffer.concat([ping, Buffer.alloc(4)]);
    longPing.writeUIntBE(8, 5, 3);
    expect(() => decodeFrame(longPing)).toThrow(/PING/);
    const shortRst = encodeFrame({ type: 'ping', id: 1 });
    shortRst.writeUInt16BE(3, 2);
    expect(() => decodeFrame(shortRst)).toThrow(/RST_STREAM/);
    expect(() => decodeFrame(Buffer.from('0000000000000000', 'hex'))).toThrow(/stream 0/);
    const settings = encodeFrame({ type: 'settings', clear: false, entries: [{ flags: 0, id: 4, value: 100 }] });
    settings.writeUInt32BE(2, 8);
    expect(() => decodeFrame(settings)).toThrow(/SETTINGS/);
  });

  it('passes a control frame of an unknown type on as unknown, to be ignored', () => {
    const frameBytes = encodeFrame({ type: 'ping', id: 1 });
    frameBytes.writeUInt16BE(10, 2);
    expect(decodeFrame(frameBytes)).toEqual({ type: 'unknown', controlType: 10 });
  });
});
