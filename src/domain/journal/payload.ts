/**
 * Turns any event or snapshot fragment into JSON the journal can hold and replay can compare:
 * errors become { code, message, retryable }, Buffers become { base64 }, actor refs become their
 * id, functions and symbols are dropped, cycles are cut. Redaction runs after this, on plain data.
 *
 * Copy-on-write: a value that is already plain JSON is returned as is (the common case on the hot
 * path), so recording an event allocates nothing beyond its line.
 */
import { serializeError } from '../errors.js';
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

export function toJournalPayload(value: unknown, depth = 0, seen?: Set<object>): unknown {
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
  if (seen?.has(obj)) return '[cycle]';
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

function plainForm(obj: object, depth: number, seen: Set<object> | undefined): unknown {
  if (obj instanceof Error) return serializeError(obj);
  if (obj instanceof Uint8Array) return { base64: Buffer.from(obj).toString('base64') };
  if (obj instanceof Date) return obj.toISOString();
  if (isActorRef(obj)) return { actorRef: obj.id };
  if (obj instanceof Map) return toJournalPayload(Object.fromEntries(obj), depth + 1, seen);
  if (obj instanceof Set) return toJournalPayload([...obj], depth + 1, seen);
  const path = seen ?? new Set<object>();
  path.add(obj);
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
    // Keys, not entries: a pair per field of every object of every event was most of what the
    // journal allocated on an idle node with pods.
    const record = obj as Record<string, unknown>;
    let out: Record<string, unknown> | null = null;
    const keys = Object.keys(record);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = record[k];
      const j = toJournalPayload(v, depth + 1, path);
      if (j !== v && out === null) {
        out = {};
        for (let m = 0; m < i; m++) out[keys[m]!] = record[keys[m]!];
      }
      if (out !== null && j !== undefined) out[k] = j;
    }
    return out ?? obj;
  } finally {
    path.delete(obj);
  }
}

function isActorRef(o: object): o is { id: string } {
  return 'sessionId' in o && 'send' in o && typeof (o as { send: unknown }).send === 'function';
}
