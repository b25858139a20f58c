/**
 * The CSI v1 codecs (`proto/csi/v1/csi.proto`: Identity and Node) and the kubelet plugin
 * registration API's (`proto/pluginregistration/v1/registration.proto`), built once per process from
 * the descriptors `npm run generate` writes, as the CRI's are (../cri-grpc/proto.ts says why).
 */
import protobuf from 'protobufjs/light.js';
import { CSI_DESCRIPTOR } from '../../generated/csi-descriptor.js';
import type { IdentityDefinition } from '../../generated/csi/v1/Identity.js';
import type { NodeDefinition } from '../../generated/csi/v1/Node.js';
import { PLUGIN_REGISTRATION_DESCRIPTOR } from '../../generated/plugin-registration-descriptor.js';
import type { RegistrationDefinition } from '../../generated/pluginregistration/Registration.js';
import { GENERATED_TYPES_CONVERSION, serviceCodecs, type ServiceCodecs } from '../proto-service.js';

export interface CsiProto {
  readonly identity: ServiceCodecs<IdentityDefinition>;
  readonly node: ServiceCodecs<NodeDefinition>;
  readonly registration: ServiceCodecs<RegistrationDefinition>;
}

let loaded: CsiProto | undefined;

export function loadCsiProto(): CsiProto {
  if (loaded) return loaded;
  const csi = protobuf.Root.fromJSON(CSI_DESCRIPTOR);
  const registration = protobuf.Root.fromJSON(PLUGIN_REGISTRATION_DESCRIPTOR);
  loaded = {
    identity: serviceCodecs<IdentityDefinition>(csi, 'csi.v1.Identity', GENERATED_TYPES_CONVERSION),
    node: serviceCodecs<NodeDefinition>(csi, 'csi.v1.Node', GENERATED_TYPES_CONVERSION),
    registration: serviceCodecs<RegistrationDefinition>(registration, 'pluginregistration.Registration', GENERATED_TYPES_CONVERSION),
  };
  return loaded;
}
