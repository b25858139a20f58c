/**
 * A SPDY/3 header block before compression (draft section 2.6.10): a 32-bit count of pairs, then
 * each name and value with a 32-bit length. Names are lowercase on the wire; several values of one
 * name travel as one value joined by NUL bytes. Go's framer lowercases what it reads and refuses a
 * name that appears twice; we do the same, so `streamType` and `streamtype` are one header here.
 */
import { SpdyFrameError } from './frames.js';

/** Header names (lowercase) to their values, in the order they came. */
export type SpdyHeaders = Readonly<Record<string, readonly string[]>>;

/** The first value of a header, as Go's http.Header.Get answers (names are matched without case). */
export function firstHeader(headers: SpdyHeaders, name: string): string | undefined {
  return headers[name.toLowerCase()]?.[0];
}

export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const names = Object.keys(headers);
  const count = Buffer.allocUnsafe(4);
  count.writeUInt32BE(names.length);
  parts.push(count);
  for (const name of names) {
    for (const text of [name.toLowerCase(), headers[name]!.join('\0')]) {
      const bytes = Buffer.from(text, 'utf8');
      const length = Buffer.allocUnsafe(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  let at = 0;
  const need = (n: number, what: string) => {
    if (at + n > block.length) throw new SpdyFrameError(`header block ends inside ${what}`);
  };
  const readString = (what: string): string => {
    need(4, what);
    const length = block.readUInt32BE(at);
    at += 4;
    need(length, what);
    const text = block.toString('utf8', at, at + length);
    at += length;
    return text;
  };
  need(4, 'the pair count');
  const count = block.readUInt32BE(0);
  at = 4;
  const headers: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let i = 0; i < count; i++) {
    const name = readString('a header name').toLowerCase();
    const value = readString(`the value of ${name}`);
    if (name === '') throw new SpdyFrameError('header block with an empty name');
    if (headers[name]) throw new SpdyFrameError(`header block names ${name} twice`);
    headers[name] = value.split('\0');
  }
  if (at !== block.length) throw new SpdyFrameError(`header block has ${block.length - at} bytes after its last pair`);
  return headers;
}
