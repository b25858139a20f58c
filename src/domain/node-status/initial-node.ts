/**
 * The Node object the kubelet registers (Go: pkg/kubelet/kubelet_node_status.go initialNode) and
 * how an existing Node is brought in line on re-registration (reconcileExistingNode's label and
 * annotation parts). Pure: every host fact comes in as data.
 */
import type { Taint } from '../api/common-types.js';
import type { NodeObject } from './api-objects.js';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_OS_BETA = 'beta.kubernetes.io/os';
export const LABEL_ARCH_BETA = 'beta.kubernetes.io/arch';
/** volumes.kubernetes.io/controller-managed-attach-detach: set when enableControllerAttachDetach. */
export const ANNOTATION_CMAD = 'volumes.kubernetes.io/controller-managed-attach-detach';
/** The taint Go adds when --register-schedulable=false (deprecated flag, still honoured). */
export const TAINT_UNSCHEDULABLE: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
/** The taint Go registers with under --cloud-provider=external, until the cloud controller initializes the Node. */
export const TAINT_EXTERNAL_CLOUD_PROVIDER: Taint = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

export interface NodeRegistrationSpec {
  nodeName: string;
  /** The host's name (Go: kl.hostname, before --hostname-override lower-casing is applied to the node name). */
  hostname: string;
  /** Go's GOOS / GOARCH names: linux, amd64, arm64… */
  operatingSystem: string;
  architecture: string;
  /** --node-labels, already validated. */
  nodeLabels: Record<string, string>;
  /** --register-with-taints, already parsed. */
  registerWithTaints: Taint[];
  registerSchedulable: boolean;
  enableControllerAttachDetach: boolean;
  /** --cloud-provider=external: the Node is registered with the uninitialized taint. */
  externalCloudProvider: boolean;
}

/** The labels Go's updateDefaultLabels keeps in line with the kubelet (cloud labels are not set here). */
export function defaultLabels(spec: NodeRegistrationSpec): Record<string, string> {
  return {
    [LABEL_HOSTNAME]: spec.hostname,
    [LABEL_OS]: spec.operatingSystem,
    [LABEL_ARCH]: spec.architecture,
    [LABEL_OS_BETA]: spec.operatingSystem,
    [LABEL_ARCH_BETA]: spec.architecture,
  };
}

/**
 * The Node to POST: metadata (name, labels, CMAD annotation) and spec (taints). The status is
 * added by the caller from computeNodeStatus, so a new Node carries addresses, capacity and
 * nodeInfo from its first write, as Go's registration does (it runs setNodeStatus first).
 */
export function initialNode(spec: NodeRegistrationSpec): NodeObject {
  // --node-labels first, then the defaults: Go writes the defaults after the user's labels, so a
  // user cannot override kubernetes.io/hostname and friends.
  const labels = { ...spec.nodeLabels, ...defaultLabels(spec) };
  const taints = [...spec.registerWithTaints];
  const has = (taint: Taint) => taints.some((t) => t.key === taint.key && t.effect === taint.effect);
  if (!spec.registerSchedulable && !has(TAINT_UNSCHEDULABLE)) taints.push({ ...TAINT_UNSCHEDULABLE });
  if (spec.externalCloudProvider && !has(TAINT_EXTERNAL_CLOUD_PROVIDER)) taints.push({ ...TAINT_EXTERNAL_CLOUD_PROVIDER });
  const metadata: NodeObject['metadata'] = { name: spec.nodeName, labels };
  if (spec.enableControllerAttachDetach) metadata.annotations = { [ANNOTATION_CMAD]: 'true' };
  const node: NodeObject = { apiVersion: 'v1', kind: 'Node', metadata, spec: {} };
  if (taints.length > 0) node.spec = { taints };
  return node;
}

export interface ReconcileResult {
  /** The node with the kubelet's view applied (a new object; the input is not changed). */
  node: NodeObject;
  changed: boolean;
}

/**
 * Go's reconcileExistingNode for what we manage: the default labels (updateDefaultLabels) and the
 * controller-managed-attach-detach annotation (reconcileCMADAnnotationWithExistingNode). Like Go,
 * --node-labels and --register-with-taints are applied only at creation and not reconciled, so an
 * administrator's later edits to them survive a kubelet restart. Capacity is left to the status update.
 */
export function reconcileExistingNode(existing: NodeObject, spec: NodeRegistrationSpec): ReconcileResult {
  const labels = { ...(existing.metadata.labels ?? {}) };
  let changed = false;
  for (const [key, value] of Object.entries(defaultLabels(spec))) {
    if (labels[key] !== value) {
      labels[key] = value;
      changed = true;
    }
  }
  const annotations = { ...(existing.metadata.annotations ?? {}) };
  const wantCmad = spec.enableControllerAttachDetach;
  if (wantCmad && annotations[ANNOTATION_CMAD] !== 'true') {
    annotations[ANNOTATION_CMAD] = 'true';
    changed = true;
  } else if (!wantCmad && ANNOTATION_CMAD in annotations) {
    delete annotations[ANNOTATION_CMAD];
    changed = true;
  }
  return { node: { ...existing, metadata: { ...existing.metadata, labels, annotations } }, changed };
}
