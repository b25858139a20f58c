/**
 * The entries of an encoded CRI list answer, read off the wire without decoding them.
 *
 * ListPodSandboxResponse and ListContainersResponse are one field: `repeated <Message> … = 1`. On the
 * wire that is the entries one after another, each a tag byte (field 1, length-delimited: 0x0a), its
 * length as a varint and the entry's bytes. Each entry's span, tag and length included, is by itself
 * a valid answer holding that one entry, which the method's own deserializer can decode.
 *
 * An entry's key says when two entries are the same message. Containerd writes a map field's pairs
 * (labels, annotations) in Go's map order, different from one answer to the next, so the key is the
 * entry's other fields as sent, then its map pairs sorted: the same entry sent in another order has
 * the same key. (Were a map to hold one key twice, the last pair would win when decoded, and the
 * order would then matter; Go's maps cannot hold a key twice.)
 */

/** Field 1, wire type 2 (length-delimited): (1 << 3) | 2. */
const LIST_FIELD_TAG = 0x0a;
/** A length of 5 varint bytes holds 35 bits; the answers we read are at most 16 MiB (2^24). */
const MAX_LENGTH_SHIFT = 28;
/** A varint is at most 10 bytes (64 bits, 7 a byte). */
const MAX_VARINT_BYTES = 10;

export interface ListEntries {
  /** Each entry's span of the answer (views, not copies), in order. */
  spans: Buffer[];
  /** Each entry's key (latin1, a character a byte): equal for the same message, map pairs in any order. */
  keys: string[];
}

/** The varint at `at` as [value, end]; undefined if it runs past `end` or is too long for a length. */
function readLength(bytes: Buffer, at: number, end: number): [number, number] | undefined {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= end || shift > MAX_LENGTH_SHIFT) return undefined;
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
}

/** Where the field starting at `at` (its tag) ends, and its number; undefined if malformed or a group. */
function readField(bytes: Buffer, at: number, end: number): { number: number; end: number } | undefined {
  const tag = readLength(bytes, at, end);
  if (!tag) return undefined;
  const [key, valueAt] = tag;
  const number = Math.floor(key / 8);
  let next: number;
  switch (key % 8) {
    case 0: {
      next = valueAt;
      while (next < end && bytes[next]! >= 0x80) next++;
      if (next >= end || next - valueAt >= MAX_VARINT_BYTES) return undefined;
      next++;
      break;
    }
    case 1: next = valueAt + 8; break;
    case 2: {
      const length = readLength(bytes, valueAt, end);
      if (!length) return undefined;
      next = length[1] + length[0];
      break;
    }
    case 5: next = valueAt + 4; break;
    default: return undefined; // groups (3, 4) and the unused 6, 7
  }
  return next <= end && number > 0 ? { number, end: next } : undefined;
}

/** The key of the message in bytes[from, to): its fields as sent, its map pairs sorted after them. */
function entryKey(bytes: Buffer, from: number, to: number, mapFields: ReadonlySet<number>): string | undefined {
  const kept: Buffer[] = [];
  const pairs: Buffer[] = [];
  for (let at = from; at < to;) {
    const field = readField(bytes, at, to);
    if (!field) return undefined;
    (mapFields.has(field.number) ? pairs : kept).push(bytes.subarray(at, field.end));
    at = field.end;
  }
  // A pair's span starts with its field's tag, so sorting the spans keeps each map's pairs together.
  pairs.sort(Buffer.compare);
  return Buffer.concat([...kept, ...pairs]).toString('latin1');
}

/**
 * The entries of `bytes`, an answer of one repeated message field numbered 1 whose messages have the
 * map fields `mapFields`; undefined when `bytes` holds anything else (another field, a truncated
 * length, a malformed entry), so the caller decodes it whole instead.
 */
export function listEntries(bytes: Buffer, mapFields: ReadonlySet<number>): ListEntries | undefined {
  const spans: Buffer[] = [];
  const keys: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    const start = at;
    if (bytes[at++] !== LIST_FIELD_TAG) return undefined;
    const length = readLength(bytes, at, bytes.length);
    if (!length) return undefined;
    const [size, messageAt] = length;
    at = messageAt + size;
    if (at > bytes.length) return undefined;
    const key = entryKey(bytes, messageAt, at, mapFields);
    if (key === undefined) return undefined;
    spans.push(bytes.subarray(start, at));
    keys.push(key);
  }
  return { spans, keys };
}
