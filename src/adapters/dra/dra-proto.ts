/**
 * The DRA kubelet plugin API's codecs (`proto/dra/v1/api.proto`, `proto/dra/v1beta1/api.proto`:
 * the DRAPlugin service of each), built once per process from the descriptors `npm run generate`
 * writes, as the CSI ones are (../csi/csi-proto.ts).
 */
import protobuf from 'protobufjs/light.js';
import { DRA_V1_DESCRIPTOR } from '../../generated/dra-v1-descriptor.js';
import { DRA_V1BETA1_DESCRIPTOR } from '../../generated/dra-v1beta1-descriptor.js';
import type { DRAPluginDefinition as V1Definition } from '../../generated/k8s/io/kubelet/pkg/apis/dra/v1/DRAPlugin.js';
import type { DRAPluginDefinition as V1beta1Definition } from '../../generated/k8s/io/kubelet/pkg/apis/dra/v1beta1/DRAPlugin.js';
import type { DraPluginService } from '../../domain/dra/plugin-services.js';
import { GENERATED_TYPES_CONVERSION, serviceCodecs, type ServiceCodecs } from '../proto-service.js';

/** The DRAPlugin service's codecs; both versions carry the same messages, so they share v1's types. */
export type DraPluginCodecs = ServiceCodecs<V1Definition>;

/** gRPC's full name of each service a plugin may announce. */
const FULL_NAMES: Readonly<Record<DraPluginService, string>> = {
  'v1.DRAPlugin': 'k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin',
  'v1beta1.DRAPlugin': 'k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin',
};

let loaded: Readonly<Record<DraPluginService, DraPluginCodecs>> | undefined;

/** The codecs of the service a plugin was registered with. */
export function draPluginCodecs(service: DraPluginService): DraPluginCodecs {
  if (!loaded) {
    const v1beta1: DraPluginCodecs = serviceCodecs<V1beta1Definition>(protobuf.Root.fromJSON(DRA_V1BETA1_DESCRIPTOR), FULL_NAMES['v1beta1.DRAPlugin'], GENERATED_TYPES_CONVERSION);
    loaded = {
      'v1.DRAPlugin': serviceCodecs<V1Definition>(protobuf.Root.fromJSON(DRA_V1_DESCRIPTOR), FULL_NAMES['v1.DRAPlugin'], GENERATED_TYPES_CONVERSION),
      'v1beta1.DRAPlugin': v1beta1,
    };
  }
  return loaded[service];
}
