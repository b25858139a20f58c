/** Plain JSON values and the two helpers every patch needs. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isObject(v: unknown): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function deepClone<T>(v: T): T {
  return structuredClone(v);
}
