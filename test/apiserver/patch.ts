/**
 * The three patch types the kubelet sends: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
 * strategic merge patch (strategic-merge.ts). Patches never mutate their input.
 */
import { strategicMerge } from './strategic-merge.js';
import { deepClone, isObject, type Json } from './json.js';
import { apiErrors } from './status.js';

/** RFC 7386: objects merge key by key, null deletes, anything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): Json {
  if (!isObject(patch)) return deepClone(patch as Json);
  const out: Record<string, Json> = isObject(target) ? deepClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: Json;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw apiErrors.badRequest(`invalid JSON pointer: ${path}`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, parts: string[], path: string): { parent: Json; key: string } {
  let cur: Json = doc;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(cur) ? cur[Number(part)] : isObject(cur) ? cur[part] : undefined;
    if (next === undefined) throw apiErrors.invalid(`jsonpatch: path ${path}: missing value`);
    cur = next;
  }
  return { parent: cur, key: parts[parts.length - 1] as string };
}

function getAt(doc: Json, path: string): Json {
  const parts = pointer(path);
  if (parts.length === 0) return doc;
  const { parent, key } = parentOf(doc, parts, path);
  const v = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
  if (v === undefined) throw apiErrors.invalid(`jsonpatch: path ${path}: missing value`);
  return v;
}

function arrayIndex(key: string, length: number, path: string, allowEnd: boolean): number {
  if (allowEnd && key === '-') return length;
  const i = Number(key);
  if (!/^(0|[1-9][0-9]*)$/.test(key) || i > (allowEnd ? length : length - 1)) {
    throw apiErrors.invalid(`jsonpatch: path ${path}: index out of bounds`);
  }
  return i;
}

function addAt(doc: Json, path: string, value: Json): Json {
  const parts = pointer(path);
  if (parts.length === 0) return value;
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, path, true), 0, value);
  else if (isObject(parent)) parent[key] = value;
  else throw apiErrors.invalid(`jsonpatch: path ${path}: parent is not a container`);
  return doc;
}

function removeAt(doc: Json, path: string): Json {
  const parts = pointer(path);
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, path, false), 1);
  else if (isObject(parent) && key in parent) delete parent[key];
  else throw apiErrors.invalid(`jsonpatch: path ${path}: missing value`);
  return doc;
}

/** RFC 6902, applied in order to a copy; a failed `test` is a 422 as the API server answers. */
export function jsonPatch(target: unknown, ops: unknown): Json {
  if (!Array.isArray(ops)) throw apiErrors.badRequest('json patch must be an array of operations');
  let doc = deepClone(target as Json);
  for (const raw of ops as JsonPatchOp[]) {
    switch (raw.op) {
      case 'add': doc = addAt(doc, raw.path, deepClone(raw.value ?? null)); break;
      case 'remove': doc = removeAt(doc, raw.path); break;
      case 'replace': getAt(doc, raw.path); doc = addAt(removeAt(doc, raw.path), raw.path, deepClone(raw.value ?? null)); break;
      case 'move': { const v = getAt(doc, raw.from ?? ''); doc = addAt(removeAt(doc, raw.from ?? ''), raw.path, v); break; }
      case 'copy': doc = addAt(doc, raw.path, deepClone(getAt(doc, raw.from ?? ''))); break;
      case 'test':
        if (JSON.stringify(getAt(doc, raw.path)) !== JSON.stringify(raw.value ?? null)) {
          throw apiErrors.invalid(`the server rejected our request due to an error in our request: testing value ${raw.path} failed`);
        }
        break;
      default: throw apiErrors.badRequest(`Unexpected kind: ${String((raw as { op?: unknown }).op)}`);
    }
  }
  return doc;
}

export const PATCH_TYPES = {
  'application/merge-patch+json': mergePatch,
  'application/strategic-merge-patch+json': strategicMerge,
  'application/json-patch+json': jsonPatch,
} as const;

export type PatchType = keyof typeof PATCH_TYPES;

export function applyPatch(contentType: string, target: unknown, patch: unknown): Json {
  const type = contentType.split(';')[0]?.trim() as PatchType;
  const fn = PATCH_TYPES[type];
  if (fn === undefined) throw apiErrors.unsupportedMediaType(`the server does not support the patch type ${contentType}`);
  return fn(target, patch);
}
