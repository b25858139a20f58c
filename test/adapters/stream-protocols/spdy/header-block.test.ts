/**
 * Header blocks: the uncompressed layout, and the per-direction zlib context that every block of a
 * session goes through in order (later blocks refer back to earlier ones, so they only decode in
 * sequence, and a fresh context cannot read them).
 */
import { deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeaderCompressor, HeaderDecompressor } from '../../../../src/adapters/stream-protocols/spdy/header-compression.js';
import { SPDY3_HEADER_DICTIONARY } from '../../../../src/adapters/stream-protocols/spdy/header-dictionary.js';
import { decodeHeaderBlock, encodeHeaderBlock, firstHeader } from '../../../../src/adapters/stream-protocols/spdy/header-block.js';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const value = fc.string({ maxLength: 40 }).filter((v) => !v.includes('\0'));
const headers = fc.dictionary(name, fc.array(value, { minLength: 1, maxLength: 3 }), { maxKeys: 6 });

describe('SPDY/3 header blocks', () => {
  it('lays out a count, then length-prefixed names and NUL-joined values', () => {
    expect(encodeHeaderBlock({ port: ['80'], a: ['x', 'y'] }).toString('hex')).toBe(
      '00000002' + '00000004' + Buffer.from('port').toString('hex') + '00000002' + Buffer.from('80').toString('hex')
      + '00000001' + '61' + '00000003' + '780079');
  });

  it('round-trips any headers, lowercasing names as Go does', () => {
    fc.assert(fc.property(headers, (h) => {
      expect(decodeHeaderBlock(encodeHeaderBlock(h))).toEqual(h);
    }));
    const decoded = decodeHeaderBlock(encodeHeaderBlock({ StreamType: ['stdin'] }));
    expect(firstHeader(decoded, 'streamType')).toBe('stdin');
  });

  it('refuses a name twice, a truncated block and trailing bytes', () => {
    const twice = Buffer.concat([encodeHeaderBlock({ a: ['1'], b: ['2'] })]);
    twice.write('a', twice.length - 6); // rename b to a
    expect(() => decodeHeaderBlock(twice)).toThrow(/twice/);
    const block = encodeHeaderBlock({ port: ['80'] });
    expect(() => decodeHeaderBlock(block.subarray(0, block.length - 1))).toThrow(/ends inside/);
    expect(() => decodeHeaderBlock(Buffer.concat([block, Buffer.from([0])]))).toThrow(/after its last pair/);
  });

  it('compresses a session of blocks against the SPDY dictionary, each decodable only after the ones before it', async () => {
    await fc.assert(fc.asyncProperty(fc.array(headers, { minLength: 2, maxLength: 6 }), async (blocks) => {
      const compressor = new HeaderCompressor();
      const decompressor = new HeaderDecompressor(1 << 20);
      const wire = await Promise.all(blocks.map((h) => compressor.compress(encodeHeaderBlock(h))));
      const back = await Promise.all(wire.map(async (w) => decodeHeaderBlock(await decompressor.decompress(w))));
      expect(back).toEqual(blocks);
      compressor.close();
      decompressor.close();
    }), { numRuns: 30 });
    // The first block is a zlib stream primed with the dictionary: zlib itself reads it with it and not without.
    const first = await new HeaderCompressor().compress(encodeHeaderBlock({ method: ['get'] }));
    expect(() => inflateSync(first)).toThrow();
    expect(decodeHeaderBlock(inflateSync(first, { dictionary: SPDY3_HEADER_DICTIONARY, finishFlush: 2 }))).toEqual({ method: ['get'] });
  });

  it('reads what plain zlib wrote with the dictionary, and refuses a block that inflates past the limit', async () => {
    const block = encodeHeaderBlock({ streamtype: ['error'] });
    const fromZlib = deflateSync(block, { dictionary: SPDY3_HEADER_DICTIONARY, flush: 2 });
    expect(decodeHeaderBlock(await new HeaderDecompressor(1024).decompress(fromZlib))).toEqual({ streamtype: ['error'] });
    const huge = deflateSync(encodeHeaderBlock({ big: ['x'.repeat(100_000)] }), { dictionary: SPDY3_HEADER_DICTIONARY, flush: 2 });
    await expect(new HeaderDecompressor(10_000).decompress(huge)).rejects.toThrow(/over 10000 bytes/);
    await expect(new HeaderDecompressor(10_000).decompress(Buffer.from('not zlib at all'))).rejects.toThrow(/does not inflate/);
  });
});
