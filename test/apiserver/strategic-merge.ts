/**
 * Strategic merge patch for the fields the kubelet patches.
 *
 * Go derives each list's strategy from struct tags (`patchStrategy:"merge" patchMergeKey:"type"`).
 * We keep a table of the lists that merge, by dotted path, for Pod, Node, Namespace, Event and
 * Lease; every other list is replaced, as Go does for lists without a strategy. Supported
 * directives: `$patch: replace|delete` (maps and list items), `$setElementOrder/<list>`,
 * `$deleteFromPrimitiveList/<list>`, `$retainKeys`. Not supported: a patch that changes a list's
 * strategy per request, `$patch: merge` on lists (it is the default here anyway).
 */
import { deepClone, isObject, type Json } from './json.js';

/** Lists of objects merged by a key field. */
const MERGE_KEYS: Record<string, string> = {
  'metadata.ownerReferences': 'uid',
  'metadata.managedFields': 'manager',
  'spec.containers': 'name',
  'spec.initContainers': 'name',
  'spec.ephemeralContainers': 'name',
  'spec.containers.ports': 'containerPort',
  'spec.containers.env': 'name',
  'spec.containers.volumeMounts': 'mountPath',
  'spec.initContainers.env': 'name',
  'spec.initContainers.volumeMounts': 'mountPath',
  'spec.volumes': 'name',
  'spec.imagePullSecrets': 'name',
  'spec.hostAliases': 'ip',
  'status.conditions': 'type',
  'status.addresses': 'type',
  'status.podIPs': 'ip',
  'status.hostIPs': 'ip',
};

/** Lists of scalars merged as sets. */
const MERGE_PRIMITIVES = new Set(['metadata.finalizers', 'spec.podCIDRs']);

const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function withoutDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutDirectives);
  if (!isObject(v)) return v;
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = withoutDirectives(x);
  return out;
}

function mergeKeyedList(target: Json[], patch: Json[], path: string, key: string): Json[] {
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace')).map(withoutDirectives);
  }
  const out = target.map((t) => deepClone(t));
  for (const item of patch) {
    if (!isObject(item)) continue;
    const at = out.findIndex((t) => isObject(t) && t[key] === item[key]);
    if (item.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) {
      out[at] = mergeAt(out[at] as Json, item, path);
    } else {
      out.push(withoutDirectives(item));
    }
  }
  return out;
}

function reorder(list: Json[], order: Json[], key: string | undefined): Json[] {
  const id = (v: Json): string => JSON.stringify(key !== undefined && isObject(v) ? v[key] : v);
  const rank = new Map(order.map((o, i) => [id(o), i]));
  const ranked = list.filter((v) => rank.has(id(v))).sort((a, b) => (rank.get(id(a)) ?? 0) - (rank.get(id(b)) ?? 0));
  return [...ranked, ...list.filter((v) => !rank.has(id(v)))];
}

function mergeAt(target: Json, patch: Json, path: string): Json {
  if (!isObject(patch)) return withoutDirectives(patch);
  if (patch.$patch === 'replace') return withoutDirectives(patch);
  const out: Record<string, Json> = isObject(target) ? deepClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const sub = join(path, key);
    if (value === null || (isObject(value) && value.$patch === 'delete')) {
      delete out[key];
    } else if (Array.isArray(value)) {
      const current = Array.isArray(out[key]) ? (out[key] as Json[]) : [];
      const mergeKey = MERGE_KEYS[sub];
      if (mergeKey !== undefined) out[key] = mergeKeyedList(current, value, sub, mergeKey);
      else if (MERGE_PRIMITIVES.has(sub)) out[key] = [...current, ...value.filter((v) => !current.includes(v))];
      else out[key] = withoutDirectives(value);
    } else {
      out[key] = mergeAt(out[key] ?? null, value, sub);
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM) && Array.isArray(value)) {
      const list = key.slice(DELETE_FROM.length);
      const current = out[list];
      if (Array.isArray(current)) out[list] = current.filter((v) => !value.includes(v));
    }
    if (key.startsWith(SET_ORDER) && Array.isArray(value)) {
      const list = key.slice(SET_ORDER.length);
      const current = out[list];
      if (Array.isArray(current)) out[list] = reorder(current, value, MERGE_KEYS[join(path, list)]);
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys);
    for (const key of Object.keys(out)) if (!keep.has(key)) delete out[key];
  }
  return out;
}

export function strategicMerge(target: unknown, patch: unknown): Json {
  return mergeAt(deepClone((target ?? null) as Json), patch as Json, '');
}
