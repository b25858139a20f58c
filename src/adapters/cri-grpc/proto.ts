/**
 * The CRI v1 codec (`proto/runtime/v1/api.proto`), made once per process, and the two service
 * definitions built on it. The client adapter and the embedded runtime's server both come here, so
 * they can never disagree on how int64, enums and bytes look in JS.
 *
 * The proto is not parsed here: `npm run generate` turns it into protobufjs's JSON descriptor
 * (scripts/proto-descriptor.mjs → src/generated/cri-descriptor.ts), which protobufjs/light reads
 * without its parser (../proto-service.ts). Parsing the .proto text at every start, as
 * @grpc/proto-loader did, cost the daemon start CPU and left the text, the parser and a second
 * reflection tree in its heap.
 * The definitions are typed with the types `npm run generate` made from the same file with the same
 * options (src/generated/), so requests, answers and handlers are checked against the proto.
 */
import protobuf from 'protobufjs/light.js';
import { CRI_DESCRIPTOR } from '../../generated/cri-descriptor.js';
import type { ImageServiceDefinition } from '../../generated/runtime/v1/ImageService.js';
import type { RuntimeServiceDefinition } from '../../generated/runtime/v1/RuntimeService.js';
import { GENERATED_TYPES_CONVERSION, serviceCodecs, type ServiceCodecs } from '../proto-service.js';
import { warmUpMethods } from '../proto-warm-up.js';


export interface CriProto {
  /** runtime.v1.RuntimeService, for `server.addService` or a client's unary calls. */
  readonly runtimeService: ServiceCodecs<RuntimeServiceDefinition>;
  readonly imageService: ServiceCodecs<ImageServiceDefinition>;
  /** The reflection of every type (list-answer-shape.ts reads the list answers' fields). */
  readonly root: protobuf.Root;
}

let loaded: CriProto | undefined;

/** The CRI services, built on first use and cached for the life of the process. */
export function loadCriProto(): CriProto {
  if (loaded) return loaded;
  const root = protobuf.Root.fromJSON(CRI_DESCRIPTOR);
  loaded = {
    runtimeService: serviceCodecs<RuntimeServiceDefinition>(root, 'runtime.v1.RuntimeService', GENERATED_TYPES_CONVERSION),
    imageService: serviceCodecs<ImageServiceDefinition>(root, 'runtime.v1.ImageService', GENERATED_TYPES_CONVERSION),
    root,
  };
  return loaded;
}

/**
 * The calls of a pod's start and end. Only their messages are warmed: the rest (stats, exec, images'
 * pulls and lists) are made at start-up or on a timer anyway, or seldom, and warming every type
 * kept ~0.7 MB more of coders in the heap.
 */
const POD_LIFECYCLE_CALLS = {
  'runtime.v1.RuntimeService': [
    'RunPodSandbox', 'PodSandboxStatus', 'ListPodSandbox', 'StopPodSandbox', 'RemovePodSandbox',
    'CreateContainer', 'StartContainer', 'ContainerStatus', 'ListContainers', 'StopContainer', 'RemoveContainer',
  ],
  'runtime.v1.ImageService': ['ImageStatus'],
} as const;

/** The messages of a pod's start and end through their codecs once (../proto-warm-up.ts), at a moment the caller picks. */
export function warmUpCriCodecs(): void {
  const { root } = loadCriProto();
  for (const [service, methods] of Object.entries(POD_LIFECYCLE_CALLS)) warmUpMethods(root, service, methods, GENERATED_TYPES_CONVERSION);
}
