/** `obj`'s own fields before `key`, in a new object: where a walk that copies only on a change starts its copy. */
export function copyUntil(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    if (k === key) break;
    if (Object.hasOwn(obj, k)) out[k] = obj[k];
  }
  return out;
}

/** `items` mapped by `fn`; the very array when `fn` changed none of them (copy-on-write). */
export function mapSame(items: readonly unknown[], fn: (item: unknown) => unknown): readonly unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const r = fn(items[i]);
    if (r !== items[i] && out === null) out = items.slice(0, i);
    if (out !== null) out.push(r);
  }
  return out ?? items;
}
