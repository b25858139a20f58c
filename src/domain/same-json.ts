/**
 * Whether two values would be written out as the same JSON (key order aside), without writing
 * either: the journal asks this of every machine snapshot and of outputs it may write by reference,
 * and the pod config of every pod a source re-sends; turning both into text to compare was most of
 * what the asking cost. As JSON.stringify does, a key whose value is undefined is no key at all and
 * an undefined array element is null. Values are plain JSON data (no Dates, Maps or class instances).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let keys = 0;
  for (const k in ra) {
    if (!Object.hasOwn(ra, k) || ra[k] === undefined) continue;
    keys++;
    if (!Object.hasOwn(rb, k) || !sameJson(ra[k], rb[k])) return false;
  }
  for (const k in rb) if (Object.hasOwn(rb, k) && rb[k] !== undefined) keys--;
  return keys === 0;
}
