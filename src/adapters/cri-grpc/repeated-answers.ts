/**
 * A quiet node asks its runtime the same two lists every second (the PLEG's relist) and gets the
 * same entries back, every pod's sandboxes and containers. Decoding those unchanged answers is the
 * largest single cost of an idle kubelet (docs/FINDINGS.md): on the embedded runtime, where both
 * ends live in one process, and on containerd, which writes its sandboxes and containers, and each
 * one's labels and annotations, in Go's map order, so that the same entries come back in other
 * bytes nearly every time. These wrappers of a service definition (grpc-js's shape) skip the repeated work,
 * leaving the bytes on the wire as they were:
 * - `decodingRepeatedAnswers` (client): a list answer whose entries, in any order, are those of one of
 *   the few answers of the same method used most recently is not decoded again; the earlier object
 *   is handed back, in the order it had. Of an answer with other entries, only the entries not seen
 *   lately are decoded (list-entries.ts reads them off the wire, and keys them so that an entry's map
 *   pairs may come in any order). Decoded answers and entries are
 *   frozen, so no caller can change what a later call will be handed. The order of these lists means
 *   nothing (the Go kubelet sorts where it matters, as we do).
 * - `encodingRepeatedAnswers` (server): an answer built around the very list object answered before
 *   (the embedded runtime hands back its previous list when nothing in it changed) reuses that
 *   answer's bytes.
 */
import type * as grpc from '@grpc/grpc-js';
import type { ListAnswerShape } from './list-answer-shape.js';
import { entrySpan, listEntries, type ListEntries } from './list-entries.js';

/** Answers remembered per method: the unfiltered list and a few filtered ones (one pod's). */
const REMEMBERED_ANSWERS = 4;
/** A decoded entry in none of its method's last this many answers is forgotten (looked for every this many answers). */
const ENTRY_KEPT_FOR_ANSWERS = 64;

function deepFreeze<T>(value: T): T {
  // Buffers (bytes fields) cannot be frozen (Object.freeze throws on a non-empty one): left as they are.
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * `service` with the named methods wrapped. A wrapper keeps its method's path and the types its codecs
 * read and write, so the copy has the type of the original (generated definitions stay typed).
 */
function mapMethods<D extends grpc.ServiceDefinition>(service: D, methods: readonly string[], wrap: (definition: grpc.MethodDefinition<object, object>, name: string) => grpc.MethodDefinition<object, object>): D {
  const wrapped: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const [name, definition] of Object.entries(service as Record<string, grpc.MethodDefinition<object, object>>)) {
    wrapped[name] = methods.includes(name) ? wrap(definition, name) : definition;
  }
  return wrapped as D;
}

interface RememberedAnswer {
  bytes: Buffer;
  value: object;
  /** Its entries' keys (list-entries.ts), when it is a list of distinct entries. */
  entries: ReadonlySet<string> | undefined;
}

/** One method's memory: its recent answers, and its lists' entries decoded, by their keys. */
class AnswerMemory {
  private readonly recent: RememberedAnswer[] = [];
  private readonly entries = new Map<string, { value: object; usedAt: number }>();
  private answers = 0;

  constructor(private readonly decode: (bytes: Buffer) => object, private readonly shape: ListAnswerShape) {}

  deserialize(bytes: Buffer): object {
    this.answers++;
    if (this.answers % ENTRY_KEPT_FOR_ANSWERS === 0) this.forgetUnused();
    const same = this.recent.findIndex((r) => r.bytes.equals(bytes));
    if (same >= 0) return this.use(same);
    const listed = listEntries(bytes, this.shape.entryMapFields);
    const keys = listed?.keys;
    const distinct = keys && new Set(keys);
    const entries = distinct && distinct.size === keys.length ? distinct : undefined;
    if (keys && entries) {
      const reordered = this.recent.findIndex((r) => r.entries?.size === entries.size && keys.every((key) => r.entries!.has(key)));
      if (reordered >= 0) return this.use(reordered);
    }
    const value = (listed && this.fromEntries(bytes, listed)) ?? deepFreeze(this.decode(bytes));
    // The bytes may be a view into a larger buffer that is reused: keep a copy.
    this.recent.unshift({ bytes: Buffer.from(bytes), value, entries });
    if (this.recent.length > REMEMBERED_ANSWERS) this.recent.pop();
    return value;
  }

  /**
   * The remembered answer at `at`, moved first (the full list, asked every second, outlives the
   * one-pod answers), its entries kept as used: the next change to the list decodes only what changed.
   */
  private use(at: number): object {
    const [hit] = this.recent.splice(at, 1);
    this.recent.unshift(hit!);
    for (const key of hit!.entries ?? []) {
      const entry = this.entries.get(key);
      if (entry) entry.usedAt = this.answers;
    }
    return hit!.value;
  }

  /** The answer made of its entries, each decoded once; undefined if an entry does not decode as one. */
  private fromEntries(bytes: Buffer, listed: ListEntries): object | undefined {
    const list: object[] = [];
    for (const [i, key] of listed.keys.entries()) {
      let entry = this.entries.get(key);
      if (!entry) {
        const one = (this.decode(entrySpan(bytes, listed, i)) as Record<string, unknown>)[this.shape.field];
        if (!Array.isArray(one) || one.length !== 1) return undefined;
        entry = { value: deepFreeze(one[0] as object), usedAt: this.answers };
        this.entries.set(key, entry);
      }
      entry.usedAt = this.answers;
      list.push(entry.value);
    }
    return deepFreeze({ [this.shape.field]: list });
  }

  private forgetUnused(): void {
    for (const [key, entry] of this.entries) {
      if (entry.usedAt <= this.answers - ENTRY_KEPT_FOR_ANSWERS) this.entries.delete(key);
    }
  }
}

/** `lists` has the shape of each method's answer to wrap (list-answer-shape.ts). */
export function decodingRepeatedAnswers<D extends grpc.ServiceDefinition>(service: D, lists: Readonly<Record<string, ListAnswerShape>>): D {
  return mapMethods(service, Object.keys(lists), (definition, name) => {
    const memory = new AnswerMemory((bytes) => definition.responseDeserialize(bytes), lists[name]!);
    return { ...definition, responseDeserialize: (bytes: Buffer) => memory.deserialize(bytes) };
  });
}

/** `listOf` picks the list an answer is built around (`items`, `containers`). */
export function encodingRepeatedAnswers<D extends grpc.ServiceDefinition>(service: D, listOf: Readonly<Record<string, (answer: object) => unknown>>): D {
  return mapMethods(service, Object.keys(listOf), (definition, name) => {
    const pick = listOf[name]!;
    const encoded = new WeakMap<object, Buffer>();
    return {
      ...definition,
      responseSerialize: (answer: object) => {
        const list = pick(answer);
        if (typeof list !== 'object' || list === null) return definition.responseSerialize(answer);
        let bytes = encoded.get(list);
        if (!bytes) {
          bytes = definition.responseSerialize(answer);
          encoded.set(list, bytes);
        }
        return bytes;
      },
    };
  });
}
