/**
 * The node as admission sees it. Go's admission reads the Node from the API server's informer,
 * or, standalone or before the Node is seen, the Node it would register (initialNode). So do we:
 * it starts as the labels (--node-labels with the kubelet's own hostname, os and arch labels on
 * top) and taints (--register-with-taints, plus the unschedulable one) that initial-node.ts
 * registers, and in cluster mode takes the labels and taints of the Node as the API server has it
 * each time they change there (withApiNode). The allocatable stays the container manager's, which
 * is what the Node reports.
 */
import type { Taint } from '../api/common-types.js';
import type { LiveNode } from '../node-status/live-node.js';
import { initialNode, type NodeRegistrationSpec } from '../node-status/initial-node.js';
import type { NodeResources } from '../resources/allocatable.js';

export interface AdmissionNode {
  name: string;
  /** Go's runtime.GOOS: the OS this kubelet runs on (linux). */
  operatingSystem: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** The container manager's node allocatable (its pods is maxPods). */
  allocatable: NodeResources;
  /** DRA claims can be prepared (cluster mode: the claims are read from the API server); else refused at admission. */
  dynamicResources?: boolean;
}

export function admissionNode(registration: NodeRegistrationSpec, allocatable: NodeResources, opts: { dynamicResources?: boolean } = {}): AdmissionNode {
  const node = initialNode(registration);
  return {
    name: registration.nodeName,
    operatingSystem: registration.operatingSystem,
    labels: node.metadata.labels ?? {},
    taints: node.spec?.taints ?? [],
    allocatable,
    ...(opts.dynamicResources ? { dynamicResources: true } : {}),
  };
}

/** The node with the labels and taints the API server's Node has now. */
export function withApiNode(node: AdmissionNode, api: Pick<LiveNode, 'labels' | 'taints'>): AdmissionNode {
  return { ...node, labels: api.labels, taints: api.taints };
}
