/**
 * The device plugin API v1beta1's codecs (`proto/deviceplugin/v1beta1/api.proto`: Registration,
 * DevicePlugin), built once per process from the descriptor `npm run generate` writes, as the CSI
 * ones are (../csi/csi-proto.ts).
 */
import protobuf from 'protobufjs/light.js';
import { DEVICE_PLUGIN_DESCRIPTOR } from '../../generated/device-plugin-descriptor.js';
import type { DevicePluginDefinition } from '../../generated/v1beta1/DevicePlugin.js';
import type { RegistrationDefinition } from '../../generated/v1beta1/Registration.js';
import { GENERATED_TYPES_CONVERSION } from '../proto-service.js';
import { serviceCodecs, type ServiceCodecs } from '../proto-service.js';

export interface DevicePluginProto {
  readonly registration: ServiceCodecs<RegistrationDefinition>;
  readonly devicePlugin: ServiceCodecs<DevicePluginDefinition>;
}

let loaded: DevicePluginProto | undefined;

export function loadDevicePluginProto(): DevicePluginProto {
  if (loaded) return loaded;
  const root = protobuf.Root.fromJSON(DEVICE_PLUGIN_DESCRIPTOR);
  loaded = {
    registration: serviceCodecs<RegistrationDefinition>(root, 'v1beta1.Registration', GENERATED_TYPES_CONVERSION),
    devicePlugin: serviceCodecs<DevicePluginDefinition>(root, 'v1beta1.DevicePlugin', GENERATED_TYPES_CONVERSION),
  };
  return loaded;
}

/** A decoded message without its proto3 default values, which protobufjs would write and Go does not; map keys in order, as Go writes them. */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (v === false || v === '' || v === 0 || v === '0' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = withoutDefaults(v);
  }
  return out;
}

let allocateResponse: protobuf.Type | undefined;
/** Built once: every Allocate answer is encoded, and every checkpointed one decoded at restart. */
const allocateResponseType = () => (allocateResponse ??= protobuf.Root.fromJSON(DEVICE_PLUGIN_DESCRIPTOR).lookupType('v1beta1.ContainerAllocateResponse'));

/** The Allocate answer's bytes, as the checkpoint keeps them (AllocResp), as Go's marshalling writes them. */
export function encodeContainerAllocateResponse(answer: object): Buffer {
  const type = allocateResponseType();
  return Buffer.from(type.encode(type.fromObject(withoutDefaults(answer) as object)).finish());
}

export function decodeContainerAllocateResponse(bytes: Uint8Array): unknown {
  const type = allocateResponseType();
  return type.toObject(type.decode(bytes), GENERATED_TYPES_CONVERSION);
}
