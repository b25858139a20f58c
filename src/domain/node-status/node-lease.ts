/**
 * The node's Lease (Go: pkg/kubelet/nodelease and component-helpers/apimachinery/lease):
 * kube-node-lease/<node>, held by the node name, renewed every quarter of its duration, owned by
 * the Node so it is garbage collected with it.
 */
import type { OwnerReference } from '../api/common-types.js';
import { microTime, type LeaseObject } from './api-objects.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Go: nodeLeaseDurationSeconds default. */
export const DEFAULT_LEASE_DURATION_SECONDS = 40;
/** Go: renewInterval = leaseDuration × 0.25 (NodeLeaseRenewIntervalFraction). */
export const RENEW_INTERVAL_FRACTION = 0.25;
/** Go: maxUpdateRetries in the lease controller. */
export const LEASE_MAX_TRIES = 5;

export interface LeaseParams {
  nodeName: string;
  leaseDurationSeconds: number;
  /** The Node's uid once registered; the owner reference is set only with it. */
  nodeUid: string | null;
  nowMs: number;
}

export function renewIntervalMs(leaseDurationSeconds: number): number {
  return Math.round(leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION);
}

function ownerReference(nodeName: string, uid: string): OwnerReference {
  return { apiVersion: 'v1', kind: 'Node', name: nodeName, uid };
}

/** A new Lease to create (Go: newLease with no base). */
export function newLease(p: LeaseParams): LeaseObject {
  return renewedLease({ metadata: { name: p.nodeName, namespace: NODE_LEASE_NAMESPACE }, spec: {} }, p);
}

/**
 * The lease with holder, duration and renewTime set to now, and the Node as owner when its uid is
 * known and no owner reference to it is there yet (Go: setNodeOwnerFunc). The input is not changed.
 */
export function renewedLease(base: LeaseObject, p: LeaseParams): LeaseObject {
  const lease: LeaseObject = {
    ...base,
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { ...base.metadata },
    spec: { ...base.spec, holderIdentity: p.nodeName, leaseDurationSeconds: p.leaseDurationSeconds, renewTime: microTime(p.nowMs) },
  };
  const owners = base.metadata.ownerReferences ?? [];
  if (p.nodeUid !== null && !owners.some((o) => o.kind === 'Node' && o.uid === p.nodeUid)) {
    lease.metadata.ownerReferences = [...owners, ownerReference(p.nodeName, p.nodeUid)];
  }
  return lease;
}
