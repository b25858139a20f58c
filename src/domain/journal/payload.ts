/**
 * Turns any event or snapshot fragment into JSON the journal can hold and replay can compare:
 * errors become { code, message, retryable }, Buffers become { base64 }, actor refs become their
 * id, functions and symbols are dropped, cycles are cut. Redaction runs after this, on plain data.
 */
import { serializeError } from '../errors.js';

const MAX_DEPTH = 12;

export function toJournalPayload(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || value === undefined) return value ?? null;
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
  if (depth >= MAX_DEPTH) return '[depth]';
  if (seen.has(obj)) return '[cycle]';
  if (obj instanceof Error) return serializeError(obj);
  if (obj instanceof Uint8Array) return { base64: Buffer.from(obj).toString('base64') };
  if (obj instanceof Date) return obj.toISOString();
  if (isActorRef(obj)) return { actorRef: obj.id };
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((v) => toJournalPayload(v, depth + 1, seen) ?? null);
    if (obj instanceof Map) return toJournalPayload(Object.fromEntries(obj), depth + 1, seen);
    if (obj instanceof Set) return toJournalPayload([...obj], depth + 1, seen);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const j = toJournalPayload(v, depth + 1, seen);
      if (j !== undefined) out[k] = j;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

function isActorRef(o: object): o is { id: string } {
  return 'sessionId' in o && 'send' in o && typeof (o as { send: unknown }).send === 'function';
}
