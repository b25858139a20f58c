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
  /**
   * Where each entry's span of the answer ends, in order (the next one starts there; the first at
   * 0): offsets rather than a view per entry, since most entries of a relist are never decoded.
   */
  ends: number[];
  /** Each entry's key (latin1, a character a byte): equal for the same message, map pairs in any order. */
  keys: string[];
}

/** Entry `i`'s span of `bytes`, the answer `entries` was read from (a view, not a copy). */
export function entrySpan(bytes: Buffer, entries: Pick<ListEntries, 'ends'>, i: number): Buffer {
  return bytes.subarray(i === 0 ? 0 : entries.ends[i - 1]!, entries.ends[i]!);
}

/**
 * Where the last read ended: the readers below answer their value and leave their end here rather
 * than in a new pair, since they run for every field of every entry of every relist.
 */
const read = { end: 0 };

/** The varint at `at` (its end in `read.end`); -1 if it runs past `end` or is too long for a length. */
function readLength(bytes: Buffer, at: number, end: number): number {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= end || shift > MAX_LENGTH_SHIFT) return -1;
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) {
      read.end = at;
      return value;
    }
  }
}

/** The number of the field starting at `at` (its tag; its end in `read.end`); -1 if malformed or a group. */
function readField(bytes: Buffer, at: number, end: number): number {
  const key = readLength(bytes, at, end);
  if (key < 0) return -1;
  const valueAt = read.end;
  const number = Math.floor(key / 8);
  let next: number;
  switch (key % 8) {
    case 0: {
      next = valueAt;
      while (next < end && bytes[next]! >= 0x80) next++;
      if (next >= end || next - valueAt >= MAX_VARINT_BYTES) return -1;
      next++;
      break;
    }
    case 1: next = valueAt + 8; break;
    case 2: {
      const length = readLength(bytes, valueAt, end);
      if (length < 0) return -1;
      next = read.end + length;
      break;
    }
    case 5: next = valueAt + 4; break;
    default: return -1; // groups (3, 4) and the unused 6, 7
  }
  if (next > end || number <= 0) return -1;
  read.end = next;
  return number;
}

/** Whether bytes[a, aEnd) sorts before bytes[b, bEnd), byte by byte (a prefix first). */
function before(bytes: Buffer, a: number, aEnd: number, b: number, bEnd: number): boolean {
  for (; a < aEnd && b < bEnd; a++, b++) {
    if (bytes[a] !== bytes[b]) return bytes[a]! < bytes[b]!;
  }
  return aEnd - a < bEnd - b;
}

/**
 * Scratch for entryKey, kept from entry to entry: a relist keys every entry of both lists every
 * second, and a view, an array or a copy per field would be most of what an idle node allocates.
 * `fields` holds each field's [start, end), kept ones from the front, map pairs from the back.
 */
const scratch = { fields: new Int32Array(256), out: Buffer.alloc(4096) };

/** The key of the message in bytes[from, to): its fields as sent, its map pairs sorted after them. */
function entryKey(bytes: Buffer, from: number, to: number, mapFields: ReadonlySet<number>): string | undefined {
  let kept = 0;
  let pairs = scratch.fields.length;
  for (let at = from; at < to;) {
    const number = readField(bytes, at, to);
    if (number < 0) return undefined;
    const fieldEnd = read.end;
    if (kept + 2 > pairs) {
      const grown = new Int32Array(scratch.fields.length * 2);
      grown.set(scratch.fields.subarray(0, kept));
      grown.set(scratch.fields.subarray(pairs), grown.length - (scratch.fields.length - pairs));
      pairs += grown.length - scratch.fields.length;
      scratch.fields = grown;
    }
    const f = scratch.fields;
    if (mapFields.has(number)) {
      // Insertion sort as they come (a message has a few dozen pairs at most). A pair's span starts
      // with its field's tag, so sorting the spans keeps each map's pairs together.
      let i = pairs;
      while (i < f.length && before(bytes, f[i]!, f[i + 1]!, at, fieldEnd)) {
        f[i - 2] = f[i]!;
        f[i - 1] = f[i + 1]!;
        i += 2;
      }
      f[i - 2] = at;
      f[i - 1] = fieldEnd;
      pairs -= 2;
    } else {
      f[kept++] = at;
      f[kept++] = fieldEnd;
    }
    at = fieldEnd;
  }
  if (scratch.out.length < to - from) scratch.out = Buffer.alloc(2 * (to - from));
  const { fields: f, out } = scratch;
  let length = 0;
  // FNV-1a over the key's bytes as they are copied: where to look for the same key made before.
  let hash = 0x811c9dc5;
  for (let i = 0; i < f.length; i += 2) {
    if (i === kept) i = pairs;
    for (let b = f[i]!; b < f[i + 1]!; b++) {
      const byte = bytes[b]!;
      out[length++] = byte;
      hash = Math.imul(hash ^ byte, 0x01000193);
    }
  }
  return keyOf(out, length, hash);
}

/**
 * Keys made before, by their hash, in two generations: once `current` holds KEYS_KEPT keys it
 * becomes `previous`, and what is in neither is forgotten. A quiet node keys the same entries at
 * every relist; handing back the key made before instead of a new string of the same bytes is most
 * of what keying them would otherwise allocate. Two keys with one hash simply replace each other.
 */
const KEYS_KEPT = 2048;
const keys = { current: new Map<number, string>(), previous: new Map<number, string>() };

function keyOf(out: Buffer, length: number, hash: number): string {
  const known = keys.current.get(hash);
  if (known !== undefined && isKey(known, out, length)) return known;
  const older = keys.previous.get(hash);
  const key = older !== undefined && isKey(older, out, length) ? older : out.toString('latin1', 0, length);
  keys.current.set(hash, key);
  if (keys.current.size >= KEYS_KEPT) {
    keys.previous = keys.current;
    keys.current = new Map();
  }
  return key;
}

/** Whether `key` (latin1: a character a byte) is out[0, length). */
function isKey(key: string, out: Buffer, length: number): boolean {
  if (key.length !== length) return false;
  for (let i = 0; i < length; i++) if (key.charCodeAt(i) !== out[i]) return false;
  return true;
}

/**
 * The entries of `bytes`, an answer of one repeated message field numbered 1 whose messages have the
 * map fields `mapFields`; undefined when `bytes` holds anything else (another field, a truncated
 * length, a malformed entry), so the caller decodes it whole instead.
 */
export function listEntries(bytes: Buffer, mapFields: ReadonlySet<number>): ListEntries | undefined {
  const ends: number[] = [];
  const keys: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (bytes[at++] !== LIST_FIELD_TAG) return undefined;
    const size = readLength(bytes, at, bytes.length);
    if (size < 0) return undefined;
    const messageAt = read.end;
    at = messageAt + size;
    if (at > bytes.length) return undefined;
    const key = entryKey(bytes, messageAt, at, mapFields);
    if (key === undefined) return undefined;
    ends.push(at);
    keys.push(key);
  }
  return { ends, keys };
}
