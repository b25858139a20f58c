/**
 * The core/v1 and meta/v1 types both the pod side and the node side use, in the API's JSON shape:
 * an object's metadata, its owners, a condition's status, a node's taints. Only the fields the
 * kubelet reads or sets are declared.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Every field is optional on the wire; a pod's name and uid are required where the pod is typed. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generateName?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  /** RFC 3339; set once the object is being deleted. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** The effects a taint may have (Go: v1.TaintEffect). */
export const TAINT_EFFECTS: readonly string[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export interface Taint {
  key: string;
  value?: string;
  /**
   * One of TAINT_EFFECTS. Kept a string: a configured taint is typed as read, before validation
   * checks its effect.
   */
  effect: string;
  /** RFC 3339; the API server sets it on NoExecute taints. A configured taint may not carry one. */
  timeAdded?: string;
}
