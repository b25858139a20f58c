/**
 * Go's checkpoint checksums (pkg/kubelet/checkpointmanager/checksum): FNV-1a (32 bits) of the
 * checkpoint as go-spew prints it with `%#v` (hashutil.DeepHashObject: types shown, map keys sorted,
 * methods not called). The printing is written here for the shapes checkpoints use: structs of
 * strings, unsigned numbers and maps of strings (nested), held by a pointer.
 */

/** A value as spew prints it: a string, an unsigned number, or a map of such (keys sorted). */
export type SpewValue = string | number | bigint | { [key: string]: SpewValue };

/** One struct field: its Go name, its Go type as reflect names it, its value. */
export interface SpewField { name: string; goType: string; value: SpewValue }

function spewBare(value: SpewValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return `map[${Object.keys(value).sort().map((k) => `${k}:${spewBare(value[k]!)}`).join(' ')}]`;
}

/** `%#v` of a pointer to a struct: `(*pkg.Type){Field:(type)value …}`; map entries print without types. */
export function spewPointerToStruct(goType: string, fields: readonly SpewField[]): string {
  return `(*${goType}){${fields.map((f) => `${f.name}:(${f.goType})${spewBare(f.value)}`).join(' ')}}`;
}

/** FNV-1a, 32 bits, of the UTF-8 bytes. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
