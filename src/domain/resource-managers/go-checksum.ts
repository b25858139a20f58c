/**
 * The checksum Go's kubelet puts in its checkpoint files (pkg/kubelet/checkpointmanager/checksum):
 * FNV-1a 32 over the value printed by go-spew with `%#v` (sorted map keys, methods disabled), the
 * printer of hashutil.DeepHashObject. Go prints from the value's reflection; we describe the value
 * with its Go types (`GoValue`) and print it the same way, so a file we write verifies in Go and back.
 *
 * The printing rules followed: a value shows `(<type>)` before it unless it is a map key, a map
 * value, a slice element or a pointer's target; a pointer in such a place shows `<*>`, elsewhere
 * `(*<type>)`; structs print `{Field:value …}`, maps `map[k:v …]`, slices `[a b]`, nil maps and
 * slices `<nil>`, strings unquoted.
 *
 * The checksum hashes the printed pieces as they come, so a file costs one pass over its values
 * and never a second copy of itself as printed text.
 */

export type GoValue =
  | { kind: 'int'; type: string; value: number | bigint }
  | { kind: 'string'; type: string; value: string }
  | { kind: 'ptr'; type: string; to: GoValue | null }
  | { kind: 'struct'; type: string; fields: [string, GoValue][] }
  | { kind: 'slice'; type: string; items: GoValue[] | null }
  | { kind: 'map'; type: string; entries: [GoValue & { kind: 'int' | 'string' }, GoValue][] | null };

export const goInt = (type: string, value: number | bigint): GoValue => ({ kind: 'int', type, value });
export const goString = (type: string, value: string): GoValue => ({ kind: 'string', type, value });

function keyOrder(a: GoValue, b: GoValue): number {
  if (a.kind === 'int' && b.kind === 'int') return Number(BigInt(a.value) - BigInt(b.value));
  const x = a.kind === 'string' ? a.value : '';
  const y = b.kind === 'string' ? b.value : '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Where printed text goes, piece by piece: a hash or a list of pieces, never one string built by concatenation. */
type Sink = (text: string) => void;

function writeSpew(v: GoValue, bare: boolean, out: Sink): void {
  if (v.kind === 'ptr') {
    if (v.to === null) {
      out(bare ? '<nil>' : `(${v.type})<nil>`);
      return;
    }
    out(bare ? '<*>' : `(${v.type})`);
    writeSpew(v.to, true, out);
    return;
  }
  if (!bare) out(`(${v.type})`);
  switch (v.kind) {
    case 'int':
      out(String(v.value));
      return;
    case 'string':
      out(v.value);
      return;
    case 'struct':
      out('{');
      v.fields.forEach(([name, f], i) => {
        out(i === 0 ? `${name}:` : ` ${name}:`);
        writeSpew(f, false, out);
      });
      out('}');
      return;
    case 'slice':
      if (v.items === null) {
        out('<nil>');
        return;
      }
      out('[');
      v.items.forEach((item, i) => {
        if (i > 0) out(' ');
        writeSpew(item, true, out);
      });
      out(']');
      return;
    case 'map':
      if (v.entries === null) {
        out('<nil>');
        return;
      }
      out('map[');
      [...v.entries].sort(([a], [b]) => keyOrder(a, b)).forEach(([k, val], i) => {
        if (i > 0) out(' ');
        writeSpew(k, true, out);
        out(':');
        writeSpew(val, true, out);
      });
      out(']');
  }
}

/** Collects the pieces and joins them once. */
function printed(write: (out: Sink) => void): string {
  const pieces: string[] = [];
  write((text) => pieces.push(text));
  return pieces.join('');
}

/** go-spew's `%#v`. `bare`: the value is a map key or value, a slice element or a pointer's target. */
export function spewFormat(v: GoValue, bare = false): string {
  return printed((out) => writeSpew(v, bare, out));
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The hash after the UTF-8 bytes of one code point of two bytes or more. */
function addUtf8(h: number, cp: number): number {
  if (cp < 0x800) return Math.imul(Math.imul(h ^ (0xc0 | (cp >> 6)), FNV_PRIME) ^ (0x80 | (cp & 0x3f)), FNV_PRIME);
  if (cp < 0x10000) {
    h = Math.imul(h ^ (0xe0 | (cp >> 12)), FNV_PRIME);
  } else {
    h = Math.imul(h ^ (0xf0 | (cp >> 18)), FNV_PRIME);
    h = Math.imul(h ^ (0x80 | ((cp >> 12) & 0x3f)), FNV_PRIME);
  }
  h = Math.imul(h ^ (0x80 | ((cp >> 6) & 0x3f)), FNV_PRIME);
  return Math.imul(h ^ (0x80 | (cp & 0x3f)), FNV_PRIME);
}

/**
 * FNV-1a 32 fed piece by piece, over the UTF-8 bytes of the text (a lone surrogate as U+FFFD, as
 * TextEncoder writes it): the printed value is hashed as it is printed, never held whole.
 */
export class Fnv32a {
  private hash = FNV_OFFSET;

  add(text: string): void {
    let h = this.hash;
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) {
        h = Math.imul(h ^ c, FNV_PRIME);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          i++;
          h = addUtf8(h, 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00));
          continue;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      h = addUtf8(h, c);
    }
    this.hash = h;
  }

  digest(): number {
    return this.hash >>> 0;
  }
}

/** Hashes what `write` prints. */
function hashed(write: (out: Sink) => void): number {
  const hash = new Fnv32a();
  write((text) => hash.add(text));
  return hash.digest();
}

/** FNV-1a, 32 bits, over the UTF-8 bytes. */
export function fnv32a(text: string): number {
  return hashed((out) => out(text));
}

/** Go's checksum.New over the value (with its checksum field already zero). */
export function goChecksum(v: GoValue): number {
  return hashed((out) => writeSpew(v, false, out));
}

/** A value of the simple checkpoints (the CPU manager's): a string, an unsigned number, or a map of such. */
export type SpewValue = string | number | bigint | { [key: string]: SpewValue };

/** One struct field: its Go name, its Go type as reflect names it, its value. */
export interface SpewField { name: string; goType: string; value: SpewValue }

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A simple value printed as its GoValue would be (map entries bare, keys sorted), without building one. */
function writeSimple(goType: string, value: SpewValue, bare: boolean, out: Sink): void {
  if (!bare) out(`(${goType})`);
  if (typeof value !== 'object') {
    out(String(value));
    return;
  }
  out('map[');
  const keys = Object.keys(value).sort(byCodeUnit);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out(' ');
    out(k);
    out(':');
    const v = value[k]!;
    if (typeof v === 'object') writeSimple('', v, true, out);
    else out(typeof v === 'string' ? v : String(v));
  }
  out(']');
}

function writePointerToStruct(goType: string, fields: readonly SpewField[], out: Sink): void {
  out(`(*${goType}){`);
  fields.forEach((f, i) => {
    out(i === 0 ? `${f.name}:` : ` ${f.name}:`);
    writeSimple(f.goType, f.value, false, out);
  });
  out('}');
}

/** `%#v` of a pointer to a struct: `(*pkg.Type){Field:(type)value …}`; map entries print without types. */
export function spewPointerToStruct(goType: string, fields: readonly SpewField[]): string {
  return printed((out) => writePointerToStruct(goType, fields, out));
}

/** Go's checksum.New over such a pointer, hashed as it is printed. */
export function spewPointerToStructChecksum(goType: string, fields: readonly SpewField[]): number {
  return hashed((out) => writePointerToStruct(goType, fields, out));
}
