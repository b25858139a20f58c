/**
 * The pod resources API's codecs (`proto/podresources/v1/api.proto`), built once per process from
 * the descriptor `npm run generate` writes, with the CSI codecs' conversion options.
 */
import protobuf from 'protobufjs/light.js';
import { POD_RESOURCES_DESCRIPTOR } from '../../generated/pod-resources-descriptor.js';
import type { PodResourcesListerDefinition } from '../../generated/v1/PodResourcesLister.js';
import { GENERATED_TYPES_CONVERSION } from '../proto-service.js';
import { serviceCodecs, type ServiceCodecs } from '../proto-service.js';

let loaded: ServiceCodecs<PodResourcesListerDefinition> | undefined;

export function loadPodResourcesProto(): ServiceCodecs<PodResourcesListerDefinition> {
  loaded ??= serviceCodecs<PodResourcesListerDefinition>(protobuf.Root.fromJSON(POD_RESOURCES_DESCRIPTOR), 'v1.PodResourcesLister', GENERATED_TYPES_CONVERSION);
  return loaded;
}
