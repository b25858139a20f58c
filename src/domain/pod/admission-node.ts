/**
 * The node as admission sees it. Go's admission reads the Node from the API server's informer,
 * or, standalone or before the Node exists, the Node it would register (initialNode). We use the
 * latter always: the labels (--node-labels with the kubelet's own hostname, os and arch labels on
 * top) and taints (--register-with-taints, plus the unschedulable one) that initial-node.ts
 * registers, with the container manager's allocatable. Labels or taints an administrator later
 * puts on the Node in the API server are not seen (differs from Go).
 */
import type { Taint } from '../api/common-types.js';
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
}

export function admissionNode(registration: NodeRegistrationSpec, allocatable: NodeResources): AdmissionNode {
  const node = initialNode(registration);
  return {
    name: registration.nodeName,
    operatingSystem: registration.operatingSystem,
    labels: node.metadata.labels ?? {},
    taints: node.spec?.taints ?? [],
    allocatable,
  };
}
