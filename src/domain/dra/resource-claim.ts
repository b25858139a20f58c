/**
 * The part of a `resource.k8s.io/v1` ResourceClaim the kubelet reads: who owns it, what the
 * scheduler allocated (each result names the driver that prepares it) and whom it is reserved for.
 */

export interface OwnerReference { apiVersion?: string; kind?: string; name?: string; uid?: string; controller?: boolean }

export interface DeviceRequestAllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  shareID?: string;
}

export interface ResourceClaimConsumerReference { apiGroup?: string; resource: string; name: string; uid: string }

export interface ResourceClaim {
  metadata: { name: string; namespace?: string; uid?: string; ownerReferences?: OwnerReference[] };
  status?: {
    allocation?: { devices?: { results?: DeviceRequestAllocationResult[] } };
    reservedFor?: ResourceClaimConsumerReference[];
  };
}
