/**
 * The D-Bus wire format (little-endian), for the few types the kubelet's talk with logind and
 * systemd needs: y b n q i u x t d s o g h v, arrays, structs and dict entries. Pure: bytes in,
 * values out. Alignment counts from the start of the message, which starts 8-aligned, so a
 * writer or reader may count from its own start as long as that start is 8-aligned too.
 *
 * Values: integers and `h` (a unix fd's index) are numbers, `x`/`t` bigints, `b` booleans,
 * `s`/`o`/`g` strings, `v` a `Variant`, an array a JS array, a dict `a{kv}` an array of
 * `[key, value]` pairs, a struct an array of its fields.
 */

export interface Variant { signature: string; value: DbusValue }
export type DbusValue = number | bigint | boolean | string | Variant | DbusValue[];

const ALIGN: Record<string, number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, s: 4, o: 4, g: 1, h: 4, v: 1, a: 4, '(': 8, '{': 8 };

/** Splits a signature into its complete types: "sa{sv}(ii)" → ["s", "a{sv}", "(ii)"]. */
export function splitSignature(signature: string): string[] {
  const types: string[] = [];
  let i = 0;
  while (i < signature.length) {
    const end = completeTypeEnd(signature, i);
    types.push(signature.slice(i, end));
    i = end;
  }
  return types;
}

function completeTypeEnd(sig: string, start: number): number {
  const c = sig[start];
  if (c === undefined) throw new Error(`D-Bus signature '${sig}' ends inside a type`);
  if (c === 'a') return completeTypeEnd(sig, start + 1);
  if (c === '(' || c === '{') {
    const close = c === '(' ? ')' : '}';
    let i = start + 1;
    while (sig[i] !== close) {
      if (i >= sig.length) throw new Error(`D-Bus signature '${sig}' has an unclosed '${c}'`);
      i = completeTypeEnd(sig, i);
    }
    return i + 1;
  }
  if (!(c in ALIGN)) throw new Error(`D-Bus type '${c}' is not supported`);
  return start + 1;
}

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

  align(n: number): void {
    const pad = (n - (this.len % n)) % n;
    this.buf.fill(0, this.reserve(pad), this.len);
  }

  /** Writes `values` by `signature`, one value per complete type. */
  write(signature: string, values: readonly DbusValue[]): void {
    const types = splitSignature(signature);
    if (types.length !== values.length) throw new Error(`D-Bus signature '${signature}' wants ${types.length} values, got ${values.length}`);
    types.forEach((t, i) => this.writeOne(t, values[i] as DbusValue));
  }

  private writeOne(type: string, value: DbusValue): void {
    const c = type[0] as string;
    this.align(ALIGN[c] ?? 1);
    switch (c) {
      case 'y': this.buf.writeUInt8(Number(value), this.reserve(1)); return;
      case 'b': this.buf.writeUInt32LE(value ? 1 : 0, this.reserve(4)); return;
      case 'n': this.buf.writeInt16LE(Number(value), this.reserve(2)); return;
      case 'q': this.buf.writeUInt16LE(Number(value), this.reserve(2)); return;
      case 'i': this.buf.writeInt32LE(Number(value), this.reserve(4)); return;
      case 'u': case 'h': this.buf.writeUInt32LE(Number(value), this.reserve(4)); return;
      case 'x': this.buf.writeBigInt64LE(BigInt(value as bigint | number), this.reserve(8)); return;
      case 't': this.buf.writeBigUInt64LE(BigInt(value as bigint | number), this.reserve(8)); return;
      case 'd': this.buf.writeDoubleLE(Number(value), this.reserve(8)); return;
      case 's': case 'o': {
        const bytes = Buffer.from(String(value), 'utf8');
        this.buf.writeUInt32LE(bytes.length, this.reserve(4));
        this.writeBytes(bytes);
        return;
      }
      case 'g': {
        const bytes = Buffer.from(String(value), 'ascii');
        this.buf.writeUInt8(bytes.length, this.reserve(1));
        this.writeBytes(bytes);
        return;
      }
      case 'v': {
        const v = value as Variant;
        this.writeOne('g', v.signature);
        this.writeOne(v.signature, v.value);
        return;
      }
      case 'a': {
        const elem = type.slice(1);
        const lengthAt = this.reserve(4);
        this.align(ALIGN[elem[0] as string] ?? 1);
        const start = this.len;
        for (const item of value as DbusValue[]) this.writeOne(elem, item);
        this.buf.writeUInt32LE(this.len - start, lengthAt);
        return;
      }
      case '(': case '{': {
        const fields = splitSignature(type.slice(1, -1));
        const items = value as DbusValue[];
        fields.forEach((f, i) => this.writeOne(f, items[i] as DbusValue));
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

  read(signature: string): DbusValue[] {
    return splitSignature(signature).map((t) => this.readOne(t));
  }

  private need(n: number): number {
    if (this.offset + n > this.buf.length) throw new Error('D-Bus message is truncated');
    const at = this.offset;
    this.offset += n;
    return at;
  }

  readOne(type: string): DbusValue {
    const c = type[0] as string;
    this.align(ALIGN[c] ?? 1);
    switch (c) {
      case 'y': return this.buf.readUInt8(this.need(1));
      case 'b': return this.buf.readUInt32LE(this.need(4)) !== 0;
      case 'n': return this.buf.readInt16LE(this.need(2));
      case 'q': return this.buf.readUInt16LE(this.need(2));
      case 'i': return this.buf.readInt32LE(this.need(4));
      case 'u': case 'h': return this.buf.readUInt32LE(this.need(4));
      case 'x': return this.buf.readBigInt64LE(this.need(8));
      case 't': return this.buf.readBigUInt64LE(this.need(8));
      case 'd': return this.buf.readDoubleLE(this.need(8));
      case 's': case 'o': {
        const n = this.buf.readUInt32LE(this.need(4));
        const at = this.need(n + 1);
        return this.buf.toString('utf8', at, at + n);
      }
      case 'g': {
        const n = this.buf.readUInt8(this.need(1));
        const at = this.need(n + 1);
        return this.buf.toString('ascii', at, at + n);
      }
      case 'v': {
        const signature = this.readOne('g') as string;
        return { signature, value: this.readOne(signature) };
      }
      case 'a': {
        const elem = type.slice(1);
        const n = this.buf.readUInt32LE(this.need(4));
        this.align(ALIGN[elem[0] as string] ?? 1);
        const end = this.offset + n;
        if (end > this.buf.length) throw new Error('D-Bus message is truncated');
        const items: DbusValue[] = [];
        while (this.offset < end) items.push(this.readOne(elem));
        return items;
      }
      case '(': case '{':
        return splitSignature(type.slice(1, -1)).map((f) => this.readOne(f));
    }
    throw new Error(`D-Bus type '${c}' is not supported`);
  }
}
