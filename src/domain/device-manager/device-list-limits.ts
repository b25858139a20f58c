/**
 * The bound on one ListAndWatch answer. Go takes any list gRPC delivers; every list taken is
 * recorded, checkpointed and published to the Node, so its cost grows with its length. A list
 * longer than any real plugin's is refused whole, and the plugin's previous devices stay: a bad
 * list must not lose the devices a good one listed.
 */

/**
 * Devices of one resource in one list. The longest real lists: SR-IOV NICs expose at most 256 VFs
 * a port (Intel E810; ConnectX fewer), a node holds a few such ports; a GPU node has 8-16 GPUs,
 * time-sliced into at most tens of replicas each; KubeVirt's /dev/kvm plugin lists 1,000 shares.
 * 4,096 holds four times the longest of these.
 */
export const MAX_DEVICES_PER_RESOURCE = 4_096;

/** null when the list is within MAX_DEVICES_PER_RESOURCE, else the error naming the resource and the count. */
export function deviceListLimitError(resource: string, count: number): string | null {
  if (count <= MAX_DEVICES_PER_RESOURCE) return null;
  return `device plugin for resource "${resource}" listed ${count} devices in one ListAndWatch answer, more than the ${MAX_DEVICES_PER_RESOURCE} allowed; the list is refused and the previous devices kept`;
}
