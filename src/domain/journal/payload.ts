/**
 * Turns any event or snapshot fragment into JSON the journal can hold and replay can compare:
 * errors become { code, message, retryable }, Buffers become { base64 }, actor refs become their
 * id, functions and symbols are dropped, cycles are cut. Redaction runs after this, on plain data.
 *
 * Copy-on-write: a value that is already plain JSON is returned as is (the common case on the hot
 * path), so recording an event allocates nothing beyond its line.
 */
import { serializeError } from '../errors.js';
import { copyUntil } from './copy-on-write.js';
import { FormsByIdentity, isPodObject } from './pod-forms.js';

/** Each pod's form, kept by identity (pod-forms.ts); a form made where the depth guard cut nothing. */
const podForms = new FormsByIdentity();
let depthCuts = 0;

/**
 * Only a guard against runaway nesting: cycles are cut by `seen`. Inputs must reach the journal whole,
 * or replay feeds the machines something else: a pod's kube-api-access volume alone nests 13 deep
 * (payload.pods[i].spec.volumes[j].projected.sources[k].downwardAPI.items[l].fieldRef), and a 12
 * here once cut it, so no pod of a real cluster replayed.
 */
const MAX_DEPTH = 64;

/**
 * The objects above the one being walked, to cut cycles: an array searched from the top, not a Set
 * made per call, whose table grew and rehashed on every record (most of what the journal's payload
 * form allocated). Paths are short (MAX_DEPTH at most), so the search is cheap.
 */
type Path = object[];
/** The path of a top-level call: one array for every record (the walk never runs inside itself). */
const topPath: Path = [];

export function toJournalPayload(value: unknown, depth = 0, seen?: Path): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'function':
    case 'symbol':
      return undefined;
  }
  const obj = value as object;
  if (depth >= MAX_DEPTH) {
    depthCuts += 1;
    return '[depth]';
  }
  if (seen?.includes(obj)) return '[cycle]';
  if (isPodObject(obj)) {
    const known = podForms.get(obj, depth);
    if (known !== undefined) return known;
    const cutsBefore = depthCuts;
    const form = plainForm(obj, depth, seen);
    // Made whole, the form holds at this depth and any shallower one.
    if (depthCuts === cutsBefore && form !== undefined) podForms.set(obj, form, depth);
    return form;
  }
  return plainForm(obj, depth, seen);
}

function plainForm(obj: object, depth: number, seen: Path | undefined): unknown {
  if (obj instanceof Error) return serializeError(obj);
  if (obj instanceof Uint8Array) return { base64: Buffer.from(obj).toString('base64') };
  if (obj instanceof Date) return obj.toISOString();
  if (isActorRef(obj)) return { actorRef: obj.id };
  if (obj instanceof Map) return toJournalPayload(Object.fromEntries(obj), depth + 1, seen);
  if (obj instanceof Set) return toJournalPayload([...obj], depth + 1, seen);
  const path = seen ?? (topPath.length === 0 ? topPath : []);
  path.push(obj);
  try {
    if (Array.isArray(obj)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < obj.length; i++) {
        const v = obj[i];
        const j = toJournalPayload(v, depth + 1, path) ?? null;
        if (j !== v && out === null) out = obj.slice(0, i);
        if (out !== null) out.push(j);
      }
      return out ?? obj;
    }
    const record = obj as Record<string, unknown>;
    let out: Record<string, unknown> | null = null;
    // for-in, not entries nor keys: an array per object of every event was most of what the
    // journal allocated on an idle node with pods (for-in reads a plain object's cached keys).
    for (const k in record) {
      if (!Object.hasOwn(record, k)) continue;
      const v = record[k];
      const j = toJournalPayload(v, depth + 1, path);
      if (j !== v && out === null) out = copyUntil(record, k);
      if (out !== null && j !== undefined) out[k] = j;
    }
    return out ?? obj;
  } finally {
    path.pop();
  }
}

function isActorRef(o: object): o is { id: string } {
  return 'sessionId' in o && 'send' in o && typeof (o as { send: unknown }).send === 'function';
}
