/**
 * Journal records as the debug server hands them out: every literal env value in them (a pod's
 * `env: [{ name, value }]`, wherever it sits) replaced with REDACTED. The journal itself keeps them
 * (it already hides values from Secrets, redact.ts) because the file is readable by its owner only;
 * the debug server answers any local user, and literal env values are where credentials end up in a
 * pod spec. Copy-on-write: a record with no env value is handed on as is.
 */
import { copyUntil, mapSame } from './copy-on-write.js';
import { REDACTED } from './redact.js';

export function redactEnvValues<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (Array.isArray(value)) return mapSame(value, walk);
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    const r = k === 'env' && Array.isArray(v) ? mapSame(v, hideValue) : walk(v);
    if (r !== v && out === null) out = copyUntil(obj, k);
    if (out !== null) out[k] = r;
  }
  return out ?? obj;
}

function hideValue(entry: unknown): unknown {
  const walked = walk(entry);
  if (typeof walked !== 'object' || walked === null || Array.isArray(walked)) return walked;
  const e = walked as Record<string, unknown>;
  return typeof e.value === 'string' && e.value !== REDACTED ? { ...e, value: REDACTED } : e;
}
