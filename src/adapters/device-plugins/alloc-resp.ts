/**
 * A plugin's Allocate answer for one container, as the container gets it (ContainerAllocation),
 * within the bounds of domain/device-manager/allocation-limits.ts: from the plugin, counted once
 * decoded; from the checkpoint (AllocResp), measured and its entries counted on the wire before
 * anything is decoded, so a huge entry costs one scan of its bytes, not an object per entry.
 */
import protobuf from 'protobufjs/light.js';
import {
  allocationLimitError, MAX_CHECKPOINT_ALLOC_RESP_CHARS, type AllocationCounts,
} from '../../domain/device-manager/allocation-limits.js';
import type { ContainerAllocation } from '../../domain/device-manager/container-allocation.js';
import { KubeletError } from '../../domain/errors.js';
import type { ContainerAllocateResponse__Output } from '../../generated/v1beta1/ContainerAllocateResponse.js';
import { decodeContainerAllocateResponse } from './device-plugin-proto.js';

export function allocationOf(answer: ContainerAllocateResponse__Output): ContainerAllocation {
  return {
    envs: { ...answer.envs },
    mounts: answer.mounts.map((m) => ({ containerPath: m.container_path, hostPath: m.host_path, readOnly: m.read_only })),
    devices: answer.devices.map((d) => ({ containerPath: d.container_path, hostPath: d.host_path, permissions: d.permissions })),
    annotations: { ...answer.annotations },
    cdiDevices: answer.cdi_devices.map((c) => c.name),
  };
}

const countsOf = (answer: ContainerAllocateResponse__Output): AllocationCounts => ({
  envs: Object.keys(answer.envs).length,
  mounts: answer.mounts.length,
  devices: answer.devices.length,
  annotations: Object.keys(answer.annotations).length,
  cdiDevices: answer.cdi_devices.length,
});

/** The plugin's answer; a KLT_ERR_DEVICE_PLUGIN naming the resource and the count when it is over the bounds. */
export function boundedAllocationOf(resource: string, answer: ContainerAllocateResponse__Output): ContainerAllocation {
  const refusal = allocationLimitError(resource, countsOf(answer));
  if (refusal !== null) throw new KubeletError('KLT_ERR_DEVICE_PLUGIN', refusal);
  return allocationOf(answer);
}

/** ContainerAllocateResponse's field numbers (proto/deviceplugin/v1beta1/api.proto). */
const FIELDS: Record<number, keyof AllocationCounts> = { 1: 'envs', 2: 'mounts', 3: 'devices', 4: 'annotations', 5: 'cdiDevices' };
const LENGTH_DELIMITED = 2;

/** Each field's occurrences in the encoded answer (a map entry is one occurrence), without decoding any. */
export function wireCounts(bytes: Uint8Array): AllocationCounts {
  const counts: AllocationCounts = { envs: 0, mounts: 0, devices: 0, annotations: 0, cdiDevices: 0 };
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const kind = FIELDS[tag >>> 3];
    if (kind !== undefined && (tag & 7) === LENGTH_DELIMITED) counts[kind]++;
    reader.skipType(tag & 7);
  }
  return counts;
}

export type CheckpointedAllocation = { ok: true; allocation: ContainerAllocation } | { ok: false; error: string };

/** A checkpoint entry's AllocResp back, or why it is not used: too long, over the bounds, or not an answer. */
export function allocationFromCheckpoint(resource: string, allocResp: string): CheckpointedAllocation {
  if (allocResp.length > MAX_CHECKPOINT_ALLOC_RESP_CHARS) {
    return { ok: false, error: `AllocResp of resource "${resource}" is ${allocResp.length} base64 characters, more than the ${MAX_CHECKPOINT_ALLOC_RESP_CHARS} a plugin's answer can take` };
  }
  const bytes = Buffer.from(allocResp, 'base64');
  try {
    const refusal = allocationLimitError(resource, wireCounts(bytes));
    if (refusal !== null) return { ok: false, error: refusal };
    return { ok: true, allocation: allocationOf(decodeContainerAllocateResponse(bytes) as ContainerAllocateResponse__Output) };
  } catch (err) {
    return { ok: false, error: `AllocResp of resource "${resource}" is not an Allocate answer: ${err instanceof Error ? err.message : String(err)}` };
  }
}
