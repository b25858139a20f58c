/**
 * A quiet node asks its runtime the same two lists every second (the PLEG's relist) and gets the same
 * answer back, 110 pods' worth of sandboxes and containers. Encoding and decoding those unchanged
 * answers was the largest single cost of an idle kubelet on the embedded runtime, where both ends
 * live in one process. These wrappers of a grpc-js service definition skip the repeated work, leaving
 * the bytes on the wire as they were:
 * - `decodingRepeatedAnswers` (client): an answer whose bytes equal one of the few answers of the
 *   same method used most recently is not decoded again; the earlier object is handed back. Decoded answers of
 *   those methods are frozen, so no caller can change what a later call will be handed.
 * - `encodingRepeatedAnswers` (server): an answer built around the very list object answered before
 *   (the embedded runtime hands back its previous list when nothing in it changed) reuses that
 *   answer's bytes.
 */
import type * as grpc from '@grpc/grpc-js';

/** Answers remembered per method: the unfiltered list and a few filtered ones (one pod's). */
const REMEMBERED_ANSWERS = 4;

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

export function decodingRepeatedAnswers<D extends grpc.ServiceDefinition>(service: D, methods: readonly string[]): D {
  return mapMethods(service, methods, (definition) => {
    const recent: { bytes: Buffer; value: object }[] = [];
    return {
      ...definition,
      responseDeserialize: (bytes: Buffer) => {
        const at = recent.findIndex((r) => r.bytes.equals(bytes));
        if (at >= 0) {
          // Most recently used first: the full list, asked every second, outlives the one-pod answers.
          const [hit] = recent.splice(at, 1);
          recent.unshift(hit!);
          return hit!.value;
        }
        const value = deepFreeze(definition.responseDeserialize(bytes));
        // grpc-js may hand us a view into a larger buffer it reuses: keep a copy.
        recent.unshift({ bytes: Buffer.from(bytes), value });
        if (recent.length > REMEMBERED_ANSWERS) recent.pop();
        return value;
      },
    };
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
