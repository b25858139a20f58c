/**
 * The resize stream's JSON: objects one after another, split anywhere, braces inside strings not
 * counted; the first thing that is not a size ends the decoding (Go's json.Decoder loop stops there
 * too) while the stream is still read to its end.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TerminalSize } from '../../../src/adapters/stream-protocols/sessions.js';
import { ConcatenatedJsonObjects, readTerminalSizes } from '../../../src/adapters/stream-protocols/resize-reader.js';
import { pushInPieces } from './spdy/collect.js';

describe('resize stream decoding', () => {
  it('finds every object however the text is cut', () => {
    const size = fc.record({ Width: fc.integer({ min: 0, max: 65535 }), Height: fc.integer({ min: 0, max: 65535 }), Note: fc.string({ maxLength: 8 }) });
    fc.assert(fc.property(fc.array(size, { maxLength: 10 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), (sizes, cuts) => {
      const text = sizes.map((s) => `${JSON.stringify(s)}\n`).join('');
      const objects = new ConcatenatedJsonObjects();
      expect(pushInPieces(text, cuts, (piece) => objects.push(piece))).toEqual(sizes);
    }));
  });

  it('stops at the first thing that is not a size, still reading the stream to its end', async () => {
    const stream = new PassThrough();
    const sizes: TerminalSize[] = [];
    readTerminalSizes(stream, (s) => sizes.push(s));
    stream.write('{"Width":10,"Height":5}{"Width":-1,"Height":5}{"Width":20,"Height":6}');
    stream.end('x'.repeat(100_000));
    await new Promise((r) => stream.once('end', r));
    expect(sizes).toEqual([{ width: 10, height: 5 }]);
  });

  it('refuses text that is not objects, and one object without end past 4 KiB', () => {
    expect(() => new ConcatenatedJsonObjects().push('[1,2]')).toThrow();
    const long = new ConcatenatedJsonObjects();
    expect(() => long.push(`{"Width":1,"pad":"${'y'.repeat(5000)}`)).toThrow();
  });
});
