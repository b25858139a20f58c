import { describe, expect, it } from 'vitest';
import { DbusReader, DbusWriter, splitSignature, type DbusValue } from '../../../src/adapters/dbus/marshal.js';
import { decodeMessage, encodeMessage, messageLength } from '../../../src/adapters/dbus/message.js';

const bytes = (signature: string, values: DbusValue[]) => {
  const w = new DbusWriter();
  w.write(signature, values);
  return [...w.toBuffer()];
};

describe('D-Bus marshalling', () => {
  it('keeps every value when a message outgrows the writer\'s first buffer, whatever type lands on the boundary', () => {
    // StartTransientUnit's shape: past 256 bytes, where the writer replaces its buffer.
    for (let pad = 0; pad < 16; pad++) {
      const properties: DbusValue[] = [['Description', { signature: 's', value: `x${'y'.repeat(200 + pad)}` }]];
      for (const name of ['A', 'B', 'C', 'D']) properties.push([name, { signature: 'b', value: true }], [`${name}t`, { signature: 't', value: 2n ** 64n - 1n }]);
      const values: DbusValue[] = ['kubepods.slice', 'replace', properties, []];
      const w = new DbusWriter();
      w.write('ssa(sv)a(sa(sv))', values);
      expect(new DbusReader(w.toBuffer()).read('ssa(sv)a(sa(sv))')).toEqual(values);
    }
  });

  it('splits a signature into complete types', () => {
    expect(splitSignature('sa{sv}(ii)aa(yb)t')).toEqual(['s', 'a{sv}', '(ii)', 'aa(yb)', 't']);
    expect(() => splitSignature('a{sv')).toThrow(/unclosed/);
    expect(() => splitSignature('z')).toThrow(/not supported/);
  });

  it.each<[string, DbusValue[], number[]]>([
    ['y', [7], [7]],
    ['b', [true], [1, 0, 0, 0]],
    ['yu', [1, 0x01020304], [1, 0, 0, 0, 4, 3, 2, 1]],
    ['i', [-2], [0xfe, 0xff, 0xff, 0xff]],
    ['yt', [1, 5_000_000n], [1, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x4b, 0x4c, 0, 0, 0, 0, 0]],
    ['s', ['ab'], [2, 0, 0, 0, 0x61, 0x62, 0]],
    ['o', ['/a'], [2, 0, 0, 0, 0x2f, 0x61, 0]],
    ['g', ['ss'], [2, 0x73, 0x73, 0]],
    ['h', [0], [0, 0, 0, 0]],
    ['v', [{ signature: 'u', value: 3 }], [1, 0x75, 0, 0, 3, 0, 0, 0]],
    // An array's length excludes the padding before its first element.
    ['at', [[1n]], [8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]],
    ['a{sv}', [[['k', { signature: 'b', value: false }]]], [16, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x6b, 0, 1, 0x62, 0, 0, 0, 0, 0, 0, 0, 0]],
    ['(yy)', [[1, 2]], [1, 2]],
  ])('writes %s as the specification lays it out', (signature, values, expected) => {
    expect(bytes(signature, values)).toEqual(expected);
    expect(new DbusReader(Buffer.from(expected)).read(signature)).toEqual(values);
  });

  it('refuses a value count that does not match the signature, and a truncated read', () => {
    expect(() => bytes('ss', ['a'])).toThrow(/wants 2 values/);
    expect(() => new DbusReader(Buffer.from([5, 0, 0, 0, 0x61])).read('s')).toThrow(/truncated/);
  });
});

describe('D-Bus messages', () => {
  it('round-trips a method call with its header fields and body, padded to 8', () => {
    const call = {
      kind: 'call' as const, serial: 3, flags: 0, path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager',
      member: 'Inhibit', destination: 'org.freedesktop.login1', signature: 'ssss', body: ['shutdown', 'kubelet', 'why', 'delay'],
    };
    const buf = encodeMessage(call);
    expect(buf[0]).toBe(0x6c);
    expect(buf[3]).toBe(1);
    expect(messageLength(buf)).toBe(buf.length);
    expect(messageLength(buf.subarray(0, 15))).toBeNull();
    expect(decodeMessage(buf)).toEqual(call);
  });

  it('reads a signal whose header needs padding before the body', () => {
    const signal = { kind: 'signal' as const, serial: 9, flags: 0, path: '/o', interface: 'a.B', member: 'C', sender: ':1.1', signature: 'b', body: [true] };
    const buf = Buffer.concat([encodeMessage(signal), Buffer.from([0xff])]);
    expect(decodeMessage(buf)).toEqual(signal);
    expect(() => messageLength(Buffer.from('B'.repeat(16)))).toThrow(/big-endian/);
  });
});
