/**
 * Bounds on what one device plugin may answer for one container. Go takes any answer gRPC
 * delivers; kubelet-ts refuses one with more entries of a kind than any real plugin sends, so a
 * broken or hostile plugin fails its own allocation instead of stalling the kubelet that merges,
 * checkpoints and hands the answer to the runtime. The same bounds apply to an answer read back
 * from the checkpoint at restart.
 */

/**
 * Entries of each kind (variables, mounts, device nodes, annotations, CDI devices) in one answer:
 * real plugins send a handful per device, so this holds a container given every device of a node.
 */
export const MAX_ALLOCATION_ENTRIES = 1024;

/** The largest message taken from a plugin: gRPC's default receive limit, which Go's plugin client keeps. */
export const DEVICE_PLUGIN_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** The longest AllocResp (base64) the checkpoint may hold: an answer no larger than a plugin could send. */
export const MAX_CHECKPOINT_ALLOC_RESP_CHARS = Math.ceil(DEVICE_PLUGIN_MAX_MESSAGE_BYTES / 3) * 4;

export interface AllocationCounts { envs: number; mounts: number; devices: number; annotations: number; cdiDevices: number }

const KIND_NAMES: Record<keyof AllocationCounts, string> = {
  envs: 'environment variables', mounts: 'mounts', devices: 'device nodes', annotations: 'annotations', cdiDevices: 'CDI devices',
};

/** null when every count is within MAX_ALLOCATION_ENTRIES, else the error naming the resource, the kind and the count. */
export function allocationLimitError(resource: string, counts: AllocationCounts): string | null {
  for (const kind of Object.keys(KIND_NAMES) as (keyof AllocationCounts)[]) {
    if (counts[kind] > MAX_ALLOCATION_ENTRIES) {
      return `device plugin for resource "${resource}" answered Allocate with ${counts[kind]} ${KIND_NAMES[kind]} for one container, more than the ${MAX_ALLOCATION_ENTRIES} allowed`;
    }
  }
  return null;
}
