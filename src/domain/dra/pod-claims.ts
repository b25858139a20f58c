/**
 * A pod's ResourceClaims as the kubelet resolves and checks them before it prepares them (Go:
 * dynamic-resource-allocation/resourceclaim Name, IsForPod, IsReservedForPod, and the validation
 * pass of the DRA manager's prepareResources), with Go's words for each refusal:
 * - a claim is named in the pod's spec, or made from a template by the resource claim controller,
 *   which writes its name into the pod's status (absent: none was needed, nothing to prepare);
 * - a claim made for the pod must be controlled by it; any claim must list the pod in reservedFor
 *   and be allocated, its results naming the drivers that prepare it.
 */
import type { Pod, PodResourceClaimStatus } from '../pod/types.js';
import type { ResourceClaim } from './resource-claim.js';

type PodClaim = NonNullable<Pod['spec']['resourceClaims']>[number];

export type ClaimName =
  | { kind: 'name'; name: string; mustCheckOwner: boolean }
  /** The template's claim was not needed: nothing to prepare. */
  | { kind: 'none' }
  | { kind: 'error'; message: string };

const podRef = (pod: Pod) => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;

/** Go's resourceclaim.Name. */
export function podClaimName(pod: Pod, podClaim: PodClaim): ClaimName {
  if (podClaim.resourceClaimName !== undefined) return { kind: 'name', name: podClaim.resourceClaimName, mustCheckOwner: false };
  if (podClaim.resourceClaimTemplateName !== undefined) {
    const status = (pod.status?.resourceClaimStatuses ?? []).find((s: PodResourceClaimStatus) => s.name === podClaim.name);
    if (!status) return { kind: 'error', message: `pod "${podRef(pod)}": ResourceClaim not created yet` };
    return status.resourceClaimName === undefined ? { kind: 'none' } : { kind: 'name', name: status.resourceClaimName, mustCheckOwner: true };
  }
  return { kind: 'error', message: `pod "${podRef(pod)}", spec.resourceClaim ${JSON.stringify(podClaim.name)}: none of the supported fields are set` };
}

/**
 * Why the pod may not use `claim`, in Go's order and words, or null: not made for it (a template's
 * claim), not reserved for it, not allocated.
 */
export function claimRefusal(pod: Pod, claim: ResourceClaim, mustCheckOwner: boolean): string | null {
  const namespace = pod.metadata.namespace ?? 'default';
  const claimNamespace = claim.metadata.namespace ?? 'default';
  if (mustCheckOwner) {
    const controller = (claim.metadata.ownerReferences ?? []).find((o) => o.controller === true);
    if (claimNamespace !== namespace || controller?.uid === undefined || controller.uid !== pod.metadata.uid) {
      return `ResourceClaim ${claimNamespace}/${claim.metadata.name} was not created for pod ${podRef(pod)} (pod is not owner)`;
    }
  }
  if (!(claim.status?.reservedFor ?? []).some((r) => r.uid === pod.metadata.uid)) {
    return `pod ${pod.metadata.name} (${pod.metadata.uid ?? ''}) is not allowed to use ResourceClaim ${claim.metadata.name} (${claim.metadata.uid ?? ''})`;
  }
  if (!claim.status?.allocation) return `ResourceClaim ${claim.metadata.name}: not allocated`;
  return null;
}

/** The drivers that prepare the claim: one per driver among its allocation's results, in first-seen order. */
export function claimDrivers(claim: ResourceClaim): string[] {
  return [...new Set((claim.status?.allocation?.devices?.results ?? []).map((r) => r.driver))];
}
