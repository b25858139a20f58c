/**
 * DER (X.690) for the few structures x509.ts writes and reads: a writer of the universal types a
 * certificate or a certificate request holds, and a reader that walks type-length-value elements
 * so that a field can be copied as its exact bytes. Tag numbers are below 31 (one identifier byte),
 * which covers every X.509 and PKCS #10 field; the reader refuses the high-tag form and BER's
 * indefinite length rather than guess.
 */

/** One element: its identifier byte, its content, and the whole encoding (identifier, length, content). */
export interface DerElement {
  tag: number;
  content: Uint8Array;
  encoding: Uint8Array;
}

export const TAG = {
  boolean: 0x01, integer: 0x02, bitString: 0x03, octetString: 0x04, null: 0x05, oid: 0x06,
  utf8String: 0x0c, printableString: 0x13, ia5String: 0x16, utcTime: 0x17, generalizedTime: 0x18, bmpString: 0x1e,
  sequence: 0x30, set: 0x31,
} as const;

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** An element from its identifier byte and content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export const sequence = (...elements: Uint8Array[]): Buffer => tlv(TAG.sequence, Buffer.concat(elements));

/** A SET OF's content: DER orders its elements by their encodings. */
export const setContent = (elements: readonly Uint8Array[]): Buffer => Buffer.concat([...elements].sort((a, b) => Buffer.compare(a, b)));

export const set = (...elements: Uint8Array[]): Buffer => tlv(TAG.set, setContent(elements));

/** `[n] EXPLICIT`: the element wrapped in a constructed context tag. */
export const explicit = (n: number, element: Uint8Array): Buffer => tlv(0xa0 | n, element);

/** `[n] IMPLICIT`: the content under a context tag, primitive unless said. */
export const implicit = (n: number, content: Uint8Array, constructed = false): Buffer => tlv((constructed ? 0xa0 : 0x80) | n, content);

/** A non-negative INTEGER from its big-endian magnitude, in the shortest form DER allows. */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const content = trimmed.length === 0 ? Buffer.from([0]) : (trimmed[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(TAG.integer, content);
}

export function smallInteger(value: number): Buffer {
  const bytes: number[] = [];
  for (let n = value; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return unsignedInteger(Uint8Array.from(bytes));
}

export const boolean = (value: boolean): Buffer => tlv(TAG.boolean, Buffer.from([value ? 0xff : 0x00]));
export const nullElement = (): Buffer => tlv(TAG.null, new Uint8Array(0));
export const octetString = (bytes: Uint8Array): Buffer => tlv(TAG.octetString, bytes);
export const utf8String = (text: string): Buffer => tlv(TAG.utf8String, Buffer.from(text, 'utf8'));

/** A BIT STRING: the count of unused bits in the last byte, then the bytes. */
export const bitString = (bytes: Uint8Array, unusedBits = 0): Buffer => tlv(TAG.bitString, Buffer.concat([Buffer.from([unusedBits]), bytes]));

/** An OBJECT IDENTIFIER from its dotted form: the first two arcs in one byte, then each arc in base 128. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  if (arcs.length < 2 || arcs.some((a) => !Number.isSafeInteger(a) || a < 0)) throw new Error(`not an object identifier: ${dotted}`);
  const bytes: number[] = [];
  for (const arc of [arcs[0]! * 40 + arcs[1]!, ...arcs.slice(2)]) {
    const groups = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) groups.unshift(0x80 | (n % 128));
    bytes.push(...groups);
  }
  return tlv(TAG.oid, Uint8Array.from(bytes));
}

/** The dotted form of an OBJECT IDENTIFIER's content. */
export function oidText(content: Uint8Array): string {
  const arcs: number[] = [];
  let arc = 0;
  for (const byte of content) {
    arc = arc * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(arc);
      arc = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const top = Math.min(Math.floor(first / 40), 2);
  return [top, first - top * 40, ...arcs].join('.');
}

/**
 * A certificate's Time as RFC 5280 4.1.2.5 wants it: UTCTime (two-digit year) through 2049,
 * GeneralizedTime from 2050; in UTC, to the second (fractions dropped, as Go writes them).
 */
export function time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  const two = (n: number) => String(n).padStart(2, '0');
  const rest = `${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return tlv(TAG.utcTime, Buffer.from(two(year % 100) + rest, 'latin1'));
  return tlv(TAG.generalizedTime, Buffer.from(String(year).padStart(4, '0') + rest, 'latin1'));
}

/** The element that starts at `offset`; throws on a truncated element, a high tag number or an indefinite length. */
export function readElement(bytes: Uint8Array, offset = 0): DerElement & { end: number } {
  if (offset + 2 > bytes.length) throw new Error(`DER element at ${offset} is truncated`);
  const tag = bytes[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new Error(`DER element at ${offset} has a high tag number`);
  let length = bytes[offset + 1]!;
  let at = offset + 2;
  if (length === 0x80) throw new Error(`DER element at ${offset} has an indefinite length`);
  if (length > 0x80) {
    const count = length & 0x7f;
    if (count > 4 || at + count > bytes.length) throw new Error(`DER element at ${offset} has a bad length`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[at++]!;
  }
  const end = at + length;
  if (end > bytes.length) throw new Error(`DER element at ${offset} runs past its end`);
  return { tag, content: bytes.subarray(at, end), encoding: bytes.subarray(offset, end), end };
}

/** The elements a constructed element's content holds, in order. */
export function children(element: DerElement): DerElement[] {
  const found: DerElement[] = [];
  for (let at = 0; at < element.content.length;) {
    const child = readElement(element.content, at);
    found.push(child);
    at = child.end;
  }
  return found;
}

/** The child at `index`, which must carry `tag`; throws naming `what` otherwise. */
export function childOf(element: DerElement, index: number, tag: number, what: string): DerElement {
  const child = children(element)[index];
  if (child?.tag !== tag) throw new Error(`${what}: expected tag 0x${tag.toString(16)}, found ${child ? `0x${child.tag.toString(16)}` : 'nothing'}`);
  return child;
}

/** One element that spans `bytes` exactly. */
export function readDer(bytes: Uint8Array): DerElement {
  const element = readElement(bytes);
  if (element.end !== bytes.length) throw new Error(`${bytes.length - element.end} bytes after the DER element`);
  return element;
}
