/**
 * The bound on one ListAndWatch answer. Go takes any list gRPC delivers; every list taken is
 * decoded, compared with the previous one and checkpointed, so its cost grows with its length. A
 * list longer than any real plugin's is refused whole, and the plugin's previous devices stay: a
 * bad list must not lose the devices a good one listed.
 */

/**
 * Devices of one resource in one list. The longest real lists: SR-IOV NICs expose at most 256 VFs
 * a port (Intel E810; ConnectX fewer), so eight ports in one pool; a GPU node's 8 GPUs time-sliced
 * into 256 replicas each; KubeVirt's /dev/kvm plugin lists 1,000 shares. A list taken costs the
 * loop in proportion to its length (decoded, compared, checkpointed): the bound also keeps a
 * list at the bound under the loop's stall target.
 */
export const MAX_DEVICES_PER_RESOURCE = 2_048;

/** null when the list is within MAX_DEVICES_PER_RESOURCE, else the error naming the resource and the count. */
export function deviceListLimitError(resource: string, count: number): string | null {
  if (count <= MAX_DEVICES_PER_RESOURCE) return null;
  return `device plugin for resource "${resource}" listed ${count} devices in one ListAndWatch answer, more than the ${MAX_DEVICES_PER_RESOURCE} allowed; the list is refused and the previous devices kept`;
}
