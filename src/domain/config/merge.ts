/**
 * JSON merge patch (RFC 7386), which the Go kubelet uses to lay each --config-dir drop-in over the
 * configuration (jsonpatch.MergePatch in cmd/kubelet/app/server.go mergeKubeletConfigurations):
 * objects merge key by key, recursively; lists and scalars are replaced; null deletes a key.
 */
import { isPlainObject } from './decode.js';

export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = jsonMergePatch(out[key], value);
  }
  return out;
}

/** Sets a dotted path inside a plain object, creating the objects on the way. */
export function setAtPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!isPlainObject(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/** Reads a dotted path inside a plain object. */
export function getAtPath(source: unknown, path: string): unknown {
  let node: unknown = source;
  for (const part of path.split('.')) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  return node;
}
