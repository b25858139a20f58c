/** `obj`'s own fields before `key`, in a new object: where a walk that copies only on a change starts its copy. */
export function copyUntil(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    if (k === key) break;
    if (Object.hasOwn(obj, k)) out[k] = obj[k];
  }
  return out;
}
