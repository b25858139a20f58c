/**
 * The CRI v1 codec (`proto/runtime/v1/api.proto`), made once per process, and the two service
 * definitions built on it. The client adapter and the embedded runtime's server both come here, so
 * they can never disagree on how int64, enums and bytes look in JS.
 *
 * The proto is not parsed here: `npm run generate` turns it into protobufjs's JSON descriptor
 * (scripts/cri-descriptor.mjs → src/generated/cri-descriptor.ts), which protobufjs/light reads
 * without its parser. Parsing the .proto text at every start, as @grpc/proto-loader did, cost the
 * daemon start CPU and left the text, the parser and a second reflection tree in its heap.
 * The definitions are typed with the types `npm run generate` made from the same file with the same
 * options (src/generated/), so requests, answers and handlers are checked against the proto.
 */
import protobuf from 'protobufjs/light.js';
import { CRI_DESCRIPTOR } from '../../generated/cri-descriptor.js';
import type { ImageServiceDefinition } from '../../generated/runtime/v1/ImageService.js';
import type { RuntimeServiceDefinition } from '../../generated/runtime/v1/RuntimeService.js';

/**
 * How a decoded message looks, for every CRI user: int64 as decimal strings (nanosecond timestamps
 * exceed 2^53), enums as names, absent fields filled with defaults, a oneof's chosen field named.
 * Field names are the proto's own (snake_case): the descriptor is generated keeping their case.
 * `npm run generate` passes the same options to proto-loader-gen-types: change both together.
 */
export const CRI_CONVERSION_OPTIONS = {
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const satisfies protobuf.IConversionOptions;

/**
 * A generated service definition as built here: proto-loader's definitions also carry each message's
 * descriptor and the method's options, which nothing reads.
 */
export type ServiceCodecs<D> = { readonly [K in keyof D]: Omit<D[K], 'requestType' | 'responseType' | 'options'> };

export interface CriProto {
  /** runtime.v1.RuntimeService, for `server.addService` or a client's unary calls. */
  readonly runtimeService: ServiceCodecs<RuntimeServiceDefinition>;
  readonly imageService: ServiceCodecs<ImageServiceDefinition>;
  /** The reflection of every type (list-answer-shape.ts reads the list answers' fields). */
  readonly root: protobuf.Root;
}

let loaded: CriProto | undefined;

function serializer(type: protobuf.Type): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    // In Node protobufjs writes into a Buffer (its BufferWriter).
    return type.encode(type.fromObject(value)).finish() as Buffer;
  };
}

function deserializer(type: protobuf.Type): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), CRI_CONVERSION_OPTIONS);
}

/** Every unary method of `name`, with its path and its four codecs, as grpc-js reads a service definition. */
function serviceCodecs<D>(root: protobuf.Root, name: string): ServiceCodecs<D> {
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
      requestDeserialize: deserializer(request),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response),
    };
  }
  return methods as ServiceCodecs<D>;
}

/** The CRI services, built on first use and cached for the life of the process. */
export function loadCriProto(): CriProto {
  if (loaded) return loaded;
  const root = protobuf.Root.fromJSON(CRI_DESCRIPTOR);
  loaded = {
    runtimeService: serviceCodecs<RuntimeServiceDefinition>(root, 'runtime.v1.RuntimeService'),
    imageService: serviceCodecs<ImageServiceDefinition>(root, 'runtime.v1.ImageService'),
    root,
  };
  return loaded;
}
