/**
 * HPACK (RFC 7541), the header compression of HTTP/2, as far as our gRPC client needs it: a full
 * decoder for the header blocks servers send (containerd's Go server, node:http2 in tests), and an
 * encoder for our requests that sends no dynamic-table entries and no Huffman, so it keeps no state
 * and a request's headers cost one pass and one buffer.
 *
 * Names and values are bytes on the wire and strings here, one latin1 character per byte: that is
 * what HTTP field values are, and it keeps a string's length equal to its size in the table.
 */
import { decodeHuffman, HuffmanError } from './huffman.js';
import { STATIC_INDEX_BY_NAME, STATIC_TABLE, STATIC_TABLE_LENGTH } from './hpack-static-table.js';

/** A header block that breaks RFC 7541: a connection error (COMPRESSION_ERROR) for HTTP/2. */
export class HpackError extends Error {
  override readonly name = 'HpackError';
}

/** What each dynamic table entry costs beyond its name and value (RFC 7541 §4.1). */
const ENTRY_OVERHEAD = 32;

/** Integers past this are refused: no size, index or length we accept comes near it. */
const MAX_INTEGER = 2 ** 28;

const latin1Slice = (buffer: Buffer, start: number, end: number): string =>
  (buffer as Buffer & { latin1Slice(start: number, end: number): string }).latin1Slice(start, end);

/**
 * Decodes the header blocks of one connection's direction, in the order they come: the dynamic
 * table carries over from block to block. After it has thrown, the table may be half-updated, so
 * the connection must end (which RFC 7541 asks for anyway).
 */
export class HpackDecoder {
  /** What we announced as SETTINGS_HEADER_TABLE_SIZE: no size update may go beyond it. */
  private readonly maxTableSize: number;
  /** The size the encoder last chose, within maxTableSize. */
  private limit: number;
  private size = 0;
  // The dynamic table as a ring, newest entry at `newest`; entries are at least 32 bytes, so this
  // many always fit.
  private readonly capacity: number;
  private readonly names: string[];
  private readonly values: string[];
  private newest = 0;
  private count = 0;
  /** Where decode() is in its block. */
  private at = 0;
  /** The block's header list so far, against its limits, and what it went past. */
  private listBytes = 0;
  private listFields = 0;
  private maxListBytes = Infinity;
  private maxFields = Infinity;
  private over: string | null = null;

  constructor(maxTableSize = 4096) {
    if (!Number.isInteger(maxTableSize) || maxTableSize < 0 || maxTableSize > MAX_INTEGER) {
      throw new RangeError(`an HPACK table size must be an integer from 0 to ${MAX_INTEGER}, not ${maxTableSize}`);
    }
    this.maxTableSize = maxTableSize;
    this.limit = maxTableSize;
    this.capacity = Math.max(1, Math.floor(maxTableSize / ENTRY_OVERHEAD));
    this.names = new Array<string>(this.capacity).fill('');
    this.values = new Array<string>(this.capacity).fill('');
  }

  /** The fields of one complete header block (after CONTINUATION frames are joined), in order. */
  decode(block: Buffer): Array<[string, string]> {
    return this.decodeWithin(block, Infinity, Infinity) as Array<[string, string]>;
  }

  /**
   * The fields of one block, or, once its header list grows past `maxListBytes` (name + value + 32
   * per field, as RFC 9113 §6.5.2 counts) or `maxFields`, what it went past. Past a limit no more
   * fields are built, but the block is decoded to its end, so the dynamic table stays the peer's
   * and the connection can go on.
   */
  decodeWithin(block: Buffer, maxListBytes: number, maxFields: number): Array<[string, string]> | string {
    const fields: Array<[string, string]> = [];
    const end = block.length;
    this.listBytes = 0;
    this.listFields = 0;
    this.over = null;
    this.maxListBytes = maxListBytes;
    this.maxFields = maxFields;
    this.at = 0;
    while (this.at < end) {
      const first = block[this.at]!;
      if (first & 0x80) {
        // Indexed field (§6.1).
        const field = this.field(this.integer(block, 0x7f));
        if (this.within(field[0], field[1])) fields.push(field);
      } else if (first & 0x40) {
        // Literal with incremental indexing (§6.2.1): the field joins the dynamic table.
        const nameIndex = this.integer(block, 0x3f);
        const name = nameIndex === 0 ? this.string(block) : this.name(nameIndex);
        const value = this.string(block);
        this.add(name, value);
        if (this.within(name, value)) fields.push([name, value]);
      } else if (first & 0x20) {
        // Dynamic table size update (§6.3).
        if (this.listFields > 0) throw new HpackError('a dynamic table size update comes after a header field');
        const size = this.integer(block, 0x1f);
        if (size > this.maxTableSize) {
          throw new HpackError(`a dynamic table size update to ${size} goes beyond the ${this.maxTableSize} announced`);
        }
        this.limit = size;
        this.evictTo(size);
      } else {
        // Literal without indexing (§6.2.2) or never indexed (§6.2.3): the same to a decoder.
        const nameIndex = this.integer(block, 0x0f);
        const name = nameIndex === 0 ? this.string(block) : this.name(nameIndex);
        const value = this.string(block);
        if (this.within(name, value)) fields.push([name, value]);
      }
    }
    return this.over ?? fields;
  }

  /** Counts a field of the block against its limits; true while it may be kept. */
  private within(name: string, value: string): boolean {
    this.listBytes += name.length + value.length + ENTRY_OVERHEAD;
    this.listFields++;
    if (this.over === null && this.listBytes > this.maxListBytes) this.over = `a header list over ${this.maxListBytes} bytes`;
    else if (this.over === null && this.listFields > this.maxFields) this.over = `a header list of more than ${this.maxFields} fields`;
    return this.over === null;
  }

  /** The dynamic table, newest entry first: for tests and diagnostics. */
  tableEntries(): Array<[string, string]> {
    const entries: Array<[string, string]> = [];
    for (let i = 0; i < this.count; i++) {
      const slot = this.slot(i);
      entries.push([this.names[slot]!, this.values[slot]!]);
    }
    return entries;
  }

  /** The dynamic table's size as RFC 7541 counts it (§4.1). */
  get tableSize(): number {
    return this.size;
  }

  /** An integer with an N-bit prefix (§5.1), the prefix being the bits of `mask` in the current byte. */
  private integer(block: Buffer, mask: number): number {
    if (this.at >= block.length) throw new HpackError('the block ends where an integer should be');
    let value = block[this.at++]! & mask;
    if (value < mask) return value;
    for (let shift = 0; ; shift += 7) {
      if (shift > 21) throw new HpackError('an integer runs on for more than 4 continuation bytes');
      if (this.at >= block.length) throw new HpackError('the block ends inside an integer');
      const byte = block[this.at++]!;
      value += (byte & 0x7f) << shift;
      if (value > MAX_INTEGER) throw new HpackError(`an integer goes beyond ${MAX_INTEGER}`);
      if ((byte & 0x80) === 0) return value;
    }
  }

  /** A string literal (§5.2): a Huffman flag, a length with a 7-bit prefix, then the bytes. */
  private string(block: Buffer): string {
    if (this.at >= block.length) throw new HpackError('the block ends where a string should be');
    const huffman = (block[this.at]! & 0x80) !== 0;
    const length = this.integer(block, 0x7f);
    const start = this.at;
    const end = start + length;
    if (end > block.length) {
      throw new HpackError(`a string of ${length} bytes runs ${end - block.length} bytes past the end of the block`);
    }
    this.at = end;
    if (!huffman) return latin1Slice(block, start, end);
    try {
      return decodeHuffman(block, start, end);
    } catch (error) {
      if (error instanceof HuffmanError) throw new HpackError(`a Huffman-coded string is malformed: ${error.message}`, { cause: error });
      throw error;
    }
  }

  /** The ring slot of the dynamic table's entry `i` places from the newest. */
  private slot(i: number): number {
    const slot = this.newest - i;
    return slot < 0 ? slot + this.capacity : slot;
  }

  /** The ring slot of the dynamic entry at an HPACK index beyond the static table (§2.3.3). */
  private dynamicSlot(index: number): number {
    const i = index - STATIC_TABLE_LENGTH - 1;
    if (i >= this.count) {
      throw new HpackError(`index ${index} is beyond the table (${STATIC_TABLE_LENGTH} static and ${this.count} dynamic entries)`);
    }
    return this.slot(i);
  }

  private name(index: number): string {
    if (index <= STATIC_TABLE_LENGTH) return STATIC_TABLE[index - 1]![0];
    return this.names[this.dynamicSlot(index)]!;
  }

  private field(index: number): [string, string] {
    if (index === 0) throw new HpackError('an indexed field has index 0');
    if (index <= STATIC_TABLE_LENGTH) {
      // A copy: the caller may change what it is handed, the static table must not change.
      const entry = STATIC_TABLE[index - 1]!;
      return [entry[0], entry[1]];
    }
    const slot = this.dynamicSlot(index);
    return [this.names[slot]!, this.values[slot]!];
  }

  /** Adds an entry as §4.4 says: evict until it fits; one bigger than the table empties it. */
  private add(name: string, value: string): void {
    const entrySize = name.length + value.length + ENTRY_OVERHEAD;
    if (entrySize > this.limit) {
      this.evictTo(0);
      return;
    }
    this.evictTo(this.limit - entrySize);
    this.newest = this.newest + 1 === this.capacity ? 0 : this.newest + 1;
    this.names[this.newest] = name;
    this.values[this.newest] = value;
    this.count++;
    this.size += entrySize;
  }

  /** Drops the oldest entries until the table is at most `size`. */
  private evictTo(size: number): void {
    while (this.size > size) {
      const oldest = this.slot(this.count - 1);
      this.size -= this.names[oldest]!.length + this.values[oldest]!.length + ENTRY_OVERHEAD;
      this.names[oldest] = '';
      this.values[oldest] = '';
      this.count--;
    }
  }
}

/**
 * A header block for `fields`, without Huffman and without the dynamic table (§6.2.2 literals,
 * so the server adds nothing to its table for us either): a static index when the whole field is in
 * the static table, else a literal with the name's static index, else a literal with a literal name.
 * Names must be lowercase already (HTTP/2 asks for that), names and values latin1.
 */
export function encodeHeaderBlock(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  // Each field takes at most 12 bytes beyond its name and value: an index or a zero byte, and two
  // lengths of at most 5 bytes each.
  let bound = 0;
  for (const [name, value] of fields) bound += name.length + value.length + 12;
  const out = Buffer.allocUnsafe(bound);
  let at = 0;
  for (const [name, value] of fields) {
    const nameIndex = STATIC_INDEX_BY_NAME.get(name);
    if (nameIndex === undefined) {
      out[at++] = 0x00;
      at = writeString(out, at, name);
    } else {
      const exact = staticPairIndex(nameIndex, name, value);
      if (exact !== 0) {
        at = writeInteger(out, at, 0x80, 0x7f, exact);
        continue;
      }
      at = writeInteger(out, at, 0x00, 0x0f, nameIndex);
    }
    at = writeString(out, at, value);
  }
  return out.subarray(0, at);
}

/** The static index of exactly `name: value`, or 0; entries with one name sit together. */
function staticPairIndex(firstIndex: number, name: string, value: string): number {
  for (let index = firstIndex; index <= STATIC_TABLE_LENGTH; index++) {
    const entry = STATIC_TABLE[index - 1]!;
    if (entry[0] !== name) return 0;
    if (entry[1] === value) return index;
  }
  return 0;
}

/** Writes `value` with the prefix `mask` into the byte that starts with `flags` (§5.1). */
function writeInteger(out: Buffer, at: number, flags: number, mask: number, value: number): number {
  if (value < mask) {
    out[at++] = flags | value;
    return at;
  }
  out[at++] = flags | mask;
  let rest = value - mask;
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}

/** A raw (not Huffman-coded) string literal. */
function writeString(out: Buffer, at: number, text: string): number {
  at = writeInteger(out, at, 0x00, 0x7f, text.length);
  // Header strings are short: a loop beats a call into Buffer#write for them.
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    seen |= code;
    out[at + i] = code;
  }
  if (seen > 0xff) throw new RangeError(`a header field holds a character beyond latin1: ${JSON.stringify(text)}`);
  return at + text.length;
}
