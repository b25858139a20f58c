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

/** go-spew's `%#v`. `bare`: the value is a map key or value, a slice element or a pointer's target. */
export function spewFormat(v: GoValue, bare = false): string {
  if (v.kind === 'ptr') {
    if (v.to === null) return bare ? '<nil>' : `(${v.type})<nil>`;
    return `${bare ? '<*>' : `(${v.type})`}${spewFormat(v.to, true)}`;
  }
  const prefix = bare ? '' : `(${v.type})`;
  switch (v.kind) {
    case 'int':
      return `${prefix}${String(v.value)}`;
    case 'string':
      return `${prefix}${v.value}`;
    case 'struct':
      return `${prefix}{${v.fields.map(([name, f]) => `${name}:${spewFormat(f)}`).join(' ')}}`;
    case 'slice':
      return v.items === null ? `${prefix}<nil>` : `${prefix}[${v.items.map((i) => spewFormat(i, true)).join(' ')}]`;
    case 'map':
      if (v.entries === null) return `${prefix}<nil>`;
      return `${prefix}map[${[...v.entries].sort(([a], [b]) => keyOrder(a, b)).map(([k, val]) => `${spewFormat(k, true)}:${spewFormat(val, true)}`).join(' ')}]`;
  }
}

/** FNV-1a, 32 bits, over the UTF-8 bytes. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Go's checksum.New over the value (with its checksum field already zero). */
export function goChecksum(v: GoValue): number {
  return fnv32a(spewFormat(v));
}

/** A value of the simple checkpoints (the CPU manager's): a string, an unsigned number, or a map of such. */
export type SpewValue = string | number | bigint | { [key: string]: SpewValue };

/** One struct field: its Go name, its Go type as reflect names it, its value. */
export interface SpewField { name: string; goType: string; value: SpewValue }

function simpleValue(goType: string, value: SpewValue): GoValue {
  if (typeof value === 'string') return goString(goType, value);
  if (typeof value === 'number' || typeof value === 'bigint') return goInt(goType, value);
  return {
    kind: 'map',
    type: goType,
    entries: Object.entries(value).map(([k, v]) => [{ kind: 'string', type: 'string', value: k }, simpleValue('', v)]),
  };
}

/** `%#v` of a pointer to a struct: `(*pkg.Type){Field:(type)value …}`; map entries print without types. */
export function spewPointerToStruct(goType: string, fields: readonly SpewField[]): string {
  return spewFormat({
    kind: 'ptr',
    type: `*${goType}`,
    to: { kind: 'struct', type: goType, fields: fields.map((f) => [f.name, simpleValue(f.goType, f.value)]) },
  });
}
