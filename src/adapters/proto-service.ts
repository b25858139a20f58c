/**
 * A service of a proto, as the definition type proto-loader-gen-types generated for it, built with
 * protobufjs/light from the proto's JSON descriptor (`npm run generate`: scripts/proto-descriptor.mjs).
 * Types cannot follow a descriptor read at run time, so this is where the two meet: the generated
 * type, made from the same .proto file with the same options, names the methods and message shapes;
 * the codecs are protobufjs's, as @grpc/proto-loader makes them (fromObject then encode; decode then
 * toObject with the conversion options), without parsing .proto text when the daemon runs.
 */
import type protobuf from 'protobufjs/light.js';

/**
 * A generated service definition as built here: proto-loader's definitions also carry each message's
 * descriptor and the method's options, which nothing reads.
 */
export type ServiceCodecs<D> = { readonly [K in keyof D]: Omit<D[K], 'requestType' | 'responseType' | 'options'> };

/**
 * How a decoded message looks to every user of our gRPC services (CRI, CSI, plugin registration,
 * device plugins, pod resources): int64 as decimal strings (nanosecond timestamps exceed 2^53), enums
 * as names, absent fields filled with defaults, a oneof's chosen field named. Field names are the
 * proto's own (snake_case). `npm run generate` passes the same options to proto-loader-gen-types:
 * change both together.
 */
export const GENERATED_TYPES_CONVERSION = {
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const satisfies protobuf.IConversionOptions;

function serializer(type: protobuf.Type): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    // In Node protobufjs writes into a Buffer (its BufferWriter).
    return type.encode(type.fromObject(value)).finish() as Buffer;
  };
}

function deserializer(type: protobuf.Type, conversion: protobuf.IConversionOptions): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), conversion);
}

/** Every method of the service `name` (fully qualified) in `root`, with its path and four codecs, as grpc-js reads a service definition. */
export function serviceCodecs<D>(root: protobuf.Root, name: string, conversion: protobuf.IConversionOptions): ServiceCodecs<D> {
  const service = root.lookupService(name);
  const methods: Record<string, object> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const [request, response] = [method.resolvedRequestType!, method.resolvedResponseType!];
    methods[method.name] = {
      path: `/${name}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: serializer(request),
      requestDeserialize: deserializer(request, conversion),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response, conversion),
    };
  }
  return methods as ServiceCodecs<D>;
}
