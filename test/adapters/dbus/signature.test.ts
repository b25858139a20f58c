import { describe, expect, it } from 'vitest';
import { DbusReader, MAX_ARRAY_BYTES } from '../../../src/adapters/dbus/marshal.js';
import { decodeMessage, encodeMessage } from '../../../src/adapters/dbus/message.js';
import { parseSignature } from '../../../src/adapters/dbus/signature.js';

const nested = (open: string, inner: string, close: string, n: number) => open.repeat(n) + inner + close.repeat(n);

describe('D-Bus signatures, as the specification says', () => {
  it.each<[string, RegExp]>([
    ['a()', /empty struct/],
    ['()', /empty struct/],
    ['{ss}', /dict entry "\{" outside an array/],
    ['(a{s})', /dict entry without a value/],
    ['a{sss}', /more than a key and a value/],
    ['a{vs}', /key 'v' is not a basic type/],
    ['a{(y)s}', /key '\(' is not a basic type/],
    ['a{}', /without a key and a value/],
    ['a{sv', /unclosed '\{'/],
    ['(ii', /unclosed '\('/],
    ['i)', /unmatched '\)'/],
    ['a', /ends inside a type/],
    ['z', /type code 'z'/],
    [nested('a', 'y', '', 33), /nests arrays deeper than the specification's 32/],
    [nested('(', 'y', ')', 33), /nests structs deeper than the specification's 32/],
    [nested('a{s', 'y', '}', 33), /nests arrays deeper than the specification's 32/],
    ['y'.repeat(256), /256 characters is longer than the specification's 255/],
  ])('refuses %s', (signature, reason) => {
    expect(() => parseSignature(signature)).toThrow(reason);
  });

  it('takes the deepest and longest the specification allows', () => {
    expect(parseSignature(nested('a', 'y', '', 32))).toHaveLength(1);
    expect(parseSignature(nested('(', 'y', ')', 32))).toHaveLength(1);
    expect(parseSignature('y'.repeat(255))).toHaveLength(255);
    expect(parseSignature('a{sv}a{s(ii)}').map((t) => t.signature)).toEqual(['a{sv}', 'a{s(ii)}']);
  });
});

describe('the D-Bus reader, on bytes from a peer', () => {
  const u32 = (...values: number[]) => Buffer.concat(values.map((v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; }));

  it('refuses an array announcing more than 64 MiB before reading it', () => {
    expect(() => new DbusReader(u32(MAX_ARRAY_BYTES + 1)).read('ay')).toThrow(/array of 67108865 bytes is longer than the specification's 67108864/);
  });

  it('refuses an array whose last element runs past its announced end', () => {
    // Two bytes announced, a u32 element of four.
    expect(() => new DbusReader(u32(2, 7)).read('au')).toThrow(/runs past the array's end/);
  });

  it('refuses variants nested deeper than 64 (each one a short signature: no signature limit stops them)', () => {
    const variant = (depth: number): Buffer => (depth === 0 ? Buffer.from([1, 0x79, 0, 7]) : Buffer.concat([Buffer.from([1, 0x76, 0]), variant(depth - 1)]));
    expect(new DbusReader(variant(63)).read('v')).toHaveLength(1);
    expect(() => new DbusReader(variant(65)).read('v')).toThrow(/deeper than the specification's 64/);
  });

  it('refuses an empty struct in a variant, and a string without its NUL', () => {
    expect(() => new DbusReader(Buffer.from([3, 0x61, 0x28, 0x29, 0, 0, 0, 0, 8, 0, 0, 0])).read('v')).toThrow(/empty struct/);
    expect(() => new DbusReader(Buffer.from([1, 0, 0, 0, 0x61, 0x62])).read('s')).toThrow(/NUL/);
  });

  it('refuses a body that its signature reads past, or that holds more than its signature', () => {
    const signal = encodeMessage({ kind: 'signal', serial: 1, path: '/o', interface: 'a.B', member: 'C', signature: 'u', body: [5] });
    const short = Buffer.from(signal);
    short.writeUInt32LE(2, 4);
    expect(() => decodeMessage(short)).toThrow(/truncated/);
    const long = Buffer.concat([signal, Buffer.alloc(4)]);
    long.writeUInt32LE(8, 4);
    expect(() => decodeMessage(long)).toThrow(/4 bytes its signature 'u' does not account for/);
  });
});
