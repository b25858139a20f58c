/**
 * Runs the messages of a service's calls through their codecs once, before the first real call needs them.
 * protobufjs builds a message type's coders on its first use, and V8 compiles each of them, and each
 * function of the conversions, at its first call: a fresh kubelet paid all of that inside its first
 * burst of pod starts, the moment a node is busiest. Done while the node is still idle after start,
 * the same work is off that path. The messages are made up from the types' own fields (one value of
 * each, one entry in each list or map), so every nested type a real answer can carry is reached.
 */
import protobuf from 'protobufjs/light.js';

/** Nested types deeper than this are left empty: no CRI message nests further, and it bounds a cycle. */
const MAX_DEPTH = 8;

function scalar(type: string): unknown {
  switch (type) {
    case 'string': return 'x';
    case 'bytes': return Buffer.from('x');
    case 'bool': return true;
    case 'double': case 'float': return 1.5;
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64': return '1';
    default: return 1;
  }
}

/** A message of `type` with every field set. */
export function exemplar(type: protobuf.Type, depth = 0): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  if (depth >= MAX_DEPTH) return message;
  for (const field of type.fieldsArray) {
    field.resolve();
    const resolved = field.resolvedType;
    const value = resolved instanceof protobuf.Type ? exemplar(resolved, depth + 1)
      : resolved instanceof protobuf.Enum ? Object.keys(resolved.values).at(-1)
      : scalar(field.type);
    if (field instanceof protobuf.MapField) message[field.name] = { [field.keyType === 'string' ? 'k' : '1']: value };
    else message[field.name] = field.repeated ? [value] : value;
  }
  return message;
}

/** Encodes and decodes a made-up request and answer of each of `methods` of `service` in `root`. */
export function warmUpMethods(root: protobuf.Root, service: string, methods: readonly string[], conversion: protobuf.IConversionOptions): void {
  for (const name of methods) {
    const method = root.lookupService(service).methods[name];
    if (!method) throw new Error(`${service} has no method ${name}`);
    method.resolve();
    for (const type of [method.resolvedRequestType!, method.resolvedResponseType!]) {
      type.toObject(type.decode(type.encode(type.fromObject(exemplar(type))).finish()), conversion);
    }
  }
}
