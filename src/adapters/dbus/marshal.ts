/**
 * The D-Bus wire format (little-endian), for the few types the kubelet's talk with logind and
 * systemd needs: y b n q i u x t d s o g h v, arrays, structs and dict entries. Pure: bytes in,
 * values out. Alignment counts from the start of the message, which starts 8-aligned, so a
 * writer or reader may count from its own start as long as that start is 8-aligned too.
 *
 * Values: integers and `h` (a unix fd's index) are numbers, `x`/`t` bigints, `b` booleans,
 * `s`/`o`/`g` strings, `v` a `Variant`, an array a JS array, a dict `a{kv}` an array of
 * `[key, value]` pairs, a struct an array of its fields.
 *
 * The reader trusts nothing it reads: signatures are checked before their values are read (see
 * signature.ts), an array's announced length is bounded and its elements must end where it ends,
 * nothing is read past the buffer, and variants cannot nest a value deeper than the specification
 * allows.
 */
import { parseSignature, parseSingleType, splitSignature, type DbusType } from './signature.js';

export { splitSignature };

export interface Variant { signature: string; value: DbusValue }
export type DbusValue = number | bigint | boolean | string | Variant | DbusValue[];

/** The specification's longest array: 2^26 bytes (64 MiB). */
export const MAX_ARRAY_BYTES = 2 ** 26;
/** The specification's deepest value: 32 arrays and 32 structs, variants counted (godbus's limit too). */
export const MAX_VALUE_DEPTH = 64;

const ALIGN: Record<DbusType['code'], number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, s: 4, o: 4, g: 1, h: 4, v: 1, a: 4, '(': 8, '{': 8 };

/** Appends values to a growing buffer, aligning each from offset 0 of the writer. */
export class DbusWriter {
  private buf = Buffer.alloc(256);
  private len = 0;

  get length(): number { return this.len; }
  toBuffer(): Buffer { return this.buf.subarray(0, this.len); }

  private reserve(n: number): number {
    if (this.len + n > this.buf.length) {
      const next = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    const at = this.len;
    this.len += n;
    return at;
  }

  /**
   * Writes at a reserved offset. The buffer is read after reserving: reserving may replace it, so
   * `this.buf.write(v, this.reserve(n))` would write into the old one.
   */
  private at(n: number, write: (buf: Buffer, offset: number) => void): void {
    const offset = this.reserve(n);
    write(this.buf, offset);
  }

  align(n: number): void {
    const pad = (n - (this.len % n)) % n;
    const from = this.reserve(pad);
    this.buf.fill(0, from, this.len);
  }

  /** Writes `values` by `signature`, one value per complete type. */
  write(signature: string, values: readonly DbusValue[]): void {
    const types = parseSignature(signature);
    if (types.length !== values.length) throw new Error(`D-Bus signature '${signature}' wants ${types.length} values, got ${values.length}`);
    types.forEach((t, i) => this.writeOne(t, values[i] as DbusValue));
  }

  private writeOne(type: DbusType, value: DbusValue): void {
    this.align(ALIGN[type.code]);
    switch (type.code) {
      case 'y': this.at(1, (buf, at) => buf.writeUInt8(Number(value), at)); return;
      case 'b': this.at(4, (buf, at) => buf.writeUInt32LE(value ? 1 : 0, at)); return;
      case 'n': this.at(2, (buf, at) => buf.writeInt16LE(Number(value), at)); return;
      case 'q': this.at(2, (buf, at) => buf.writeUInt16LE(Number(value), at)); return;
      case 'i': this.at(4, (buf, at) => buf.writeInt32LE(Number(value), at)); return;
      case 'u': case 'h': this.at(4, (buf, at) => buf.writeUInt32LE(Number(value), at)); return;
      case 'x': this.at(8, (buf, at) => buf.writeBigInt64LE(BigInt(value as bigint | number), at)); return;
      case 't': this.at(8, (buf, at) => buf.writeBigUInt64LE(BigInt(value as bigint | number), at)); return;
      case 'd': this.at(8, (buf, at) => buf.writeDoubleLE(Number(value), at)); return;
      case 's': case 'o': {
        const bytes = Buffer.from(String(value), 'utf8');
        this.at(4, (buf, at) => buf.writeUInt32LE(bytes.length, at));
        this.writeBytes(bytes);
        return;
      }
      case 'g': {
        const bytes = Buffer.from(String(value), 'ascii');
        this.at(1, (buf, at) => buf.writeUInt8(bytes.length, at));
        this.writeBytes(bytes);
        return;
      }
      case 'v': {
        const v = value as Variant;
        this.writeOne({ code: 'g', signature: 'g' }, v.signature);
        this.writeOne(parseSingleType(v.signature), v.value);
        return;
      }
      case 'a': {
        const lengthAt = this.reserve(4);
        this.align(ALIGN[type.elem.code]);
        const start = this.len;
        for (const item of value as DbusValue[]) this.writeOne(type.elem, item);
        this.buf.writeUInt32LE(this.len - start, lengthAt);
        return;
      }
      case '(': case '{': {
        const items = value as DbusValue[];
        type.fields.forEach((f, i) => this.writeOne(f, items[i] as DbusValue));
        return;
      }
    }
  }

  private writeBytes(bytes: Buffer): void {
    const at = this.reserve(bytes.length + 1);
    bytes.copy(this.buf, at);
    this.buf[at + bytes.length] = 0;
  }
}

/** Reads values from `buf`, aligning from `base` (the offset in `buf` where the message starts). */
export class DbusReader {
  constructor(private readonly buf: Buffer, public offset = 0, private readonly base = 0) {}

  align(n: number): void {
    const rel = this.offset - this.base;
    this.offset += (n - (rel % n)) % n;
  }

  /** Reads one value per complete type of `signature`, which is checked before anything is read. */
  read(signature: string): DbusValue[] {
    return parseSignature(signature).map((t) => this.readOne(t, 0));
  }

  private need(n: number): number {
    if (this.offset + n > this.buf.length) throw new Error('D-Bus message is truncated');
    const at = this.offset;
    this.offset += n;
    return at;
  }

  private text(n: number, encoding: 'utf8' | 'ascii'): string {
    const at = this.need(n + 1);
    if (this.buf[at + n] !== 0) throw new Error('D-Bus string is not followed by its NUL byte');
    return this.buf.toString(encoding, at, at + n);
  }

  private readOne(type: DbusType, depth: number): DbusValue {
    this.align(ALIGN[type.code]);
    switch (type.code) {
      case 'y': return this.buf.readUInt8(this.need(1));
      case 'b': return this.buf.readUInt32LE(this.need(4)) !== 0;
      case 'n': return this.buf.readInt16LE(this.need(2));
      case 'q': return this.buf.readUInt16LE(this.need(2));
      case 'i': return this.buf.readInt32LE(this.need(4));
      case 'u': case 'h': return this.buf.readUInt32LE(this.need(4));
      case 'x': return this.buf.readBigInt64LE(this.need(8));
      case 't': return this.buf.readBigUInt64LE(this.need(8));
      case 'd': return this.buf.readDoubleLE(this.need(8));
      case 's': case 'o': return this.text(this.buf.readUInt32LE(this.need(4)), 'utf8');
      case 'g': return this.text(this.buf.readUInt8(this.need(1)), 'ascii');
      case 'v': {
        const signature = this.text(this.buf.readUInt8(this.need(1)), 'ascii');
        return { signature, value: this.readOne(parseSingleType(signature), this.deeper(depth)) };
      }
      case 'a': return this.readArray(type.elem, this.deeper(depth));
      case '(': case '{': {
        const inner = this.deeper(depth);
        return type.fields.map((f) => this.readOne(f, inner));
      }
    }
  }

  private deeper(depth: number): number {
    if (depth >= MAX_VALUE_DEPTH) throw new Error(`D-Bus value nests containers deeper than the specification's ${MAX_VALUE_DEPTH}`);
    return depth + 1;
  }

  private readArray(elem: DbusType, depth: number): DbusValue[] {
    const n = this.buf.readUInt32LE(this.need(4));
    if (n > MAX_ARRAY_BYTES) throw new Error(`D-Bus array of ${n} bytes is longer than the specification's ${MAX_ARRAY_BYTES}`);
    this.align(ALIGN[elem.code]);
    const end = this.offset + n;
    if (end > this.buf.length) throw new Error('D-Bus message is truncated');
    const items: DbusValue[] = [];
    while (this.offset < end) {
      const before = this.offset;
      items.push(this.readOne(elem, depth));
      if (this.offset > end) throw new Error("D-Bus array element runs past the array's end");
      // Valid signatures have no element of no width; the check keeps the loop finite regardless.
      if (this.offset === before) throw new Error('D-Bus array element has no width');
    }
    return items;
  }
}
