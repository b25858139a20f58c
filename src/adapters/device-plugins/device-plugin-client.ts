/**
 * A client of one device plugin's DevicePlugin service on its socket (Go: plugin/v1beta1 client.go
 * and the manager's endpoint): the dial Go blocks on for at most 10 s, GetDevicePluginOptions, the
 * ListAndWatch stream, GetPreferredAllocation, Allocate and PreStartContainer. Errors are worded as
 * Go's, with gRPC's status as Go prints it.
 */
import * as grpc from '@grpc/grpc-js';
import type { ContainerAllocateResponse__Output } from '../../generated/v1beta1/ContainerAllocateResponse.js';
import type { DevicePluginOptions__Output } from '../../generated/v1beta1/DevicePluginOptions.js';
import type { ListAndWatchResponse__Output } from '../../generated/v1beta1/ListAndWatchResponse.js';
import { DEVICE_PLUGIN_MAX_MESSAGE_BYTES } from '../../domain/device-manager/allocation-limits.js';
import { MAX_DEVICES_PER_RESOURCE } from '../../domain/device-manager/device-list-limits.js';
import { FAILED_TO_DIAL_DEVICE_PLUGIN } from '../../domain/device-manager/device-plugin-api.js';
import { KubeletError } from '../../domain/errors.js';
import { grpcErrorText } from '../csi/grpc-status-text.js';
import { loadDevicePluginProto } from './device-plugin-proto.js';
import { listedDeviceCount } from './listed-device-count.js';

/** Go's dial timeout for a plugin's socket. */
export const DEVICE_PLUGIN_DIAL_TIMEOUT_MS = 10_000;
/** Go sets no deadline on the plugin's calls; a stuck plugin is cut off after this. */
export const DEVICE_PLUGIN_CALL_TIMEOUT_MS = 120_000;

/** A ListAndWatch answer: its devices, or only how many it listed when that is over the bound (left undecoded). */
export type ListAndWatchAnswer = { devices: ListAndWatchResponse__Output['devices'] } | { overBound: number };

export interface DevicePluginClient {
  options(): Promise<DevicePluginOptions__Output>;
  /** The stream: each answer, then `end` once (null: the plugin closed it). */
  listAndWatch(onAnswer: (answer: ListAndWatchAnswer) => void, onEnd: (error: Error | null) => void): { cancel(): void };
  allocate(deviceIds: string[]): Promise<ContainerAllocateResponse__Output>;
  preferredAllocation(available: string[], mustInclude: string[], size: number): Promise<string[]>;
  preStartContainer(deviceIds: string[]): Promise<void>;
  close(): void;
}

const pluginError = (what: string, err: unknown) => new KubeletError('KLT_ERR_DEVICE_PLUGIN', `${what}: ${grpcErrorText(err)}`, { cause: err, retryable: true });

/** Connects (Go's blocking dial, 10 s) to the plugin on `socketPath`. */
export async function connectDevicePlugin(socketPath: string): Promise<DevicePluginClient> {
  const codecs = loadDevicePluginProto().devicePlugin;
  // gRPC's default, set by name: the bound on a checkpointed AllocResp is derived from the same constant.
  const client = new grpc.Client(`unix:${socketPath}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': DEVICE_PLUGIN_MAX_MESSAGE_BYTES });
  try {
    await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + DEVICE_PLUGIN_DIAL_TIMEOUT_MS, (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    client.close();
    throw new KubeletError('KLT_ERR_DEVICE_PLUGIN', `${FAILED_TO_DIAL_DEVICE_PLUGIN} ${err instanceof Error ? err.message : String(err)}`, { cause: err, retryable: true });
  }
  const unary = <Req, Res>(codec: { path: string; requestSerialize: (v: never) => Buffer; responseDeserialize: (b: Buffer) => unknown }, request: Req) =>
    new Promise<Res>((resolve, reject) => {
      // cast: the request's type is the method's; grpc-js takes the serializer of any value.
      client.makeUnaryRequest(codec.path, codec.requestSerialize as (v: Req) => Buffer, codec.responseDeserialize as (b: Buffer) => Res, request,
        { deadline: Date.now() + DEVICE_PLUGIN_CALL_TIMEOUT_MS }, (error, answer) => (error || answer === undefined ? reject(error) : resolve(answer)));
    });
  return {
    async options() {
      try {
        return await unary<object, DevicePluginOptions__Output>(codecs.GetDevicePluginOptions, {});
      } catch (err) {
        throw pluginError('failed to get device plugin options', err);
      }
    },
    listAndWatch(onAnswer, onEnd) {
      const codec = codecs.ListAndWatch;
      const decode = codec.responseDeserialize as (b: Buffer) => ListAndWatchResponse__Output;
      const deserialize = (bytes: Buffer): ListAndWatchAnswer => {
        const count = listedDeviceCount(bytes);
        return count !== null && count > MAX_DEVICES_PER_RESOURCE ? { overBound: count } : decode(bytes);
      };
      const stream = client.makeServerStreamRequest(codec.path, codec.requestSerialize as (v: object) => Buffer, deserialize, {});
      let ended = false;
      const end = (error: Error | null) => {
        if (ended) return;
        ended = true;
        onEnd(error);
      };
      stream.on('data', (answer: ListAndWatchAnswer) => onAnswer(answer));
      stream.on('error', (err: Error) => end(err));
      stream.on('end', () => end(null));
      return { cancel: () => { ended = true; stream.cancel(); } };
    },
    async allocate(deviceIds) {
      try {
        const answer = await unary<object, { container_responses: ContainerAllocateResponse__Output[] }>(codecs.Allocate, { container_requests: [{ devices_ids: deviceIds }] });
        const first = answer.container_responses[0];
        if (!first) throw new KubeletError('KLT_ERR_DEVICE_PLUGIN', `no containers return in allocation response ${JSON.stringify(answer)}`);
        return first;
      } catch (err) {
        if (err instanceof KubeletError) throw err;
        throw pluginError('Allocate failed', err);
      }
    },
    async preferredAllocation(available, mustInclude, size) {
      try {
        const answer = await unary<object, { container_responses: { deviceIDs: string[] }[] }>(codecs.GetPreferredAllocation, {
          container_requests: [{ available_deviceIDs: available, must_include_deviceIDs: mustInclude, allocation_size: size }],
        });
        return answer.container_responses[0]?.deviceIDs ?? [];
      } catch (err) {
        throw pluginError('GetPreferredAllocation failed', err);
      }
    },
    async preStartContainer(deviceIds) {
      try {
        await unary<object, object>(codecs.PreStartContainer, { devices_ids: deviceIds });
      } catch (err) {
        throw pluginError('PreStartContainer failed', err);
      }
    },
    close: () => client.close(),
  };
}
