/**
 * The DER writer and reader against known encodings (X.690's rules, and bytes OpenSSL writes for
 * the same values), and the writer's output read back by the strict test reader.
 */
import { describe, expect, it } from 'vitest';
import {
  bitString, boolean, children, childOf, explicit, implicit, nullElement, octetString, oid, oidText, readDer, readElement, sequence, set,
  smallInteger, time, tlv, unsignedInteger, utf8String,
} from '../../../src/adapters/pki/der.js';
import { parseStrictDer } from '../../support/strict-der.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').replace(/(..)(?!$)/g, '$1 ');
const bytes = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));

describe('the DER writer', () => {
  it('writes an object identifier in base 128, the first two arcs in one byte', () => {
    expect(hex(oid('1.2.840.113549.1.1.11'))).toBe('06 09 2a 86 48 86 f7 0d 01 01 0b');
    expect(hex(oid('2.5.29.17'))).toBe('06 03 55 1d 11');
    expect(hex(oid('1.2.840.10045.4.3.2'))).toBe('06 08 2a 86 48 ce 3d 04 03 02');
    expect(hex(oid('2.999.3'))).toBe('06 03 88 37 03');
    expect(() => oid('1')).toThrow(/not an object identifier/);
  });

  it('reads object identifiers back to their dotted form', () => {
    for (const dotted of ['1.2.840.113549.1.1.11', '2.5.4.3', '1.3.6.1.5.5.7.3.2', '2.999.3', '0.9.2342']) {
      expect(oidText(oid(dotted).subarray(2))).toBe(dotted);
    }
  });

  it('writes lengths in the short form up to 127 and in the shortest long form past it', () => {
    expect(hex(octetString(new Uint8Array(0x7f)).subarray(0, 2))).toBe('04 7f');
    expect(hex(octetString(new Uint8Array(0x80)).subarray(0, 3))).toBe('04 81 80');
    expect(hex(octetString(new Uint8Array(0xff)).subarray(0, 3))).toBe('04 81 ff');
    expect(hex(octetString(new Uint8Array(0x100)).subarray(0, 4))).toBe('04 82 01 00');
    expect(hex(octetString(new Uint8Array(0x10000)).subarray(0, 5))).toBe('04 83 01 00 00');
  });

  it('writes a non-negative INTEGER in its shortest form: leading zeros dropped, a zero byte before a high bit', () => {
    expect(hex(unsignedInteger(bytes('7f')))).toBe('02 01 7f');
    expect(hex(unsignedInteger(bytes('80')))).toBe('02 02 00 80');
    expect(hex(unsignedInteger(bytes('00 00 7f')))).toBe('02 01 7f');
    expect(hex(unsignedInteger(bytes('00 00 ff 01')))).toBe('02 03 00 ff 01');
    expect(hex(unsignedInteger(new Uint8Array(0)))).toBe('02 01 00');
    expect(hex(smallInteger(0))).toBe('02 01 00');
    expect(hex(smallInteger(2))).toBe('02 01 02');
    expect(hex(smallInteger(256))).toBe('02 02 01 00');
    expect(hex(smallInteger(128))).toBe('02 02 00 80');
  });

  it('writes the primitive types', () => {
    expect(hex(boolean(true))).toBe('01 01 ff');
    expect(hex(boolean(false))).toBe('01 01 00');
    expect(hex(nullElement())).toBe('05 00');
    expect(hex(utf8String('é'))).toBe('0c 02 c3 a9');
    expect(hex(bitString(bytes('a4'), 2))).toBe('03 02 02 a4');
    expect(hex(bitString(bytes('01 02')))).toBe('03 03 00 01 02');
  });

  it('writes SEQUENCE in order and SET OF sorted by encoding, and context tags', () => {
    expect(hex(sequence(smallInteger(5), smallInteger(1)))).toBe('30 06 02 01 05 02 01 01');
    expect(hex(set(smallInteger(5), smallInteger(1)))).toBe('31 06 02 01 01 02 01 05');
    expect(hex(set())).toBe('31 00');
    expect(hex(explicit(0, smallInteger(2)))).toBe('a0 03 02 01 02');
    expect(hex(implicit(2, Buffer.from('h')))).toBe('82 01 68');
    expect(hex(implicit(0, new Uint8Array(0), true))).toBe('a0 00');
  });

  it('writes UTCTime through 2049 and GeneralizedTime from 2050, to the second, in UTC', () => {
    expect(Buffer.from(time(new Date('2026-11-26T12:34:56.789Z'))).toString('latin1')).toBe('\x17\x0d261126123456Z');
    expect(Buffer.from(time(new Date('2049-12-31T23:59:59Z'))).toString('latin1')).toBe('\x17\x0d491231235959Z');
    expect(Buffer.from(time(new Date('2050-01-01T00:00:00Z'))).toString('latin1')).toBe('\x18\x0f20500101000000Z');
    expect(Buffer.from(time(new Date('1949-12-31T23:59:59Z'))).toString('latin1')).toBe('\x18\x0f19491231235959Z');
    expect(Buffer.from(time(new Date('1950-01-01T00:00:00Z'))).toString('latin1')).toBe('\x17\x0d500101000000Z');
  });

  it('writes what the strict DER reader accepts', () => {
    const big = sequence(
      explicit(0, smallInteger(2)), unsignedInteger(bytes('ff ee')), set(utf8String('b'), utf8String('a')), time(new Date()),
      bitString(new Uint8Array(300)), octetString(new Uint8Array(70_000)), boolean(true), nullElement(), oid('1.2.3'),
    );
    expect(parseStrictDer(big).children).toHaveLength(9);
  });
});

describe('the DER reader', () => {
  it('walks elements and gives each its content and whole encoding', () => {
    const encoded = sequence(smallInteger(5), sequence(octetString(new Uint8Array(200))), nullElement());
    const top = readDer(encoded);
    expect(top.tag).toBe(0x30);
    const [integer, inner, nothing] = children(top);
    expect(hex(integer!.encoding)).toBe('02 01 05');
    expect(hex(integer!.content)).toBe('05');
    expect(inner!.encoding.length).toBe(3 + 3 + 200); // 30 81 cb, 04 81 c8, the 200 bytes
    expect(children(inner!)[0]!.content.length).toBe(200);
    expect(hex(nothing!.encoding)).toBe('05 00');
    expect(childOf(top, 2, 0x05, 'null').content.length).toBe(0);
    expect(() => childOf(top, 0, 0x04, 'the octets')).toThrow(/the octets: expected tag 0x4, found 0x2/);
    expect(() => childOf(top, 3, 0x04, 'the fourth')).toThrow(/found nothing/);
  });

  it('refuses truncated elements, trailing bytes, the indefinite length and high tag numbers', () => {
    expect(() => readDer(bytes('30 03 02 01'))).toThrow(/runs past its end/);
    expect(() => readDer(bytes('02 01 05 00'))).toThrow(/1 bytes after/);
    expect(() => readDer(bytes('30 80 00 00'))).toThrow(/indefinite length/);
    expect(() => readDer(bytes('1f 22 01 00'))).toThrow(/high tag number/);
    expect(() => readDer(bytes('04 85 01 00 00 00 00'))).toThrow(/bad length/);
    expect(() => readDer(bytes('30'))).toThrow(/truncated/);
  });

  it('reads a long-form length', () => {
    const element = readElement(tlv(0x04, new Uint8Array(0x100)));
    expect(element.content.length).toBe(0x100);
    expect(element.end).toBe(4 + 0x100);
  });
});
