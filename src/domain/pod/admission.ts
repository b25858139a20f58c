/**
 * Node-level pod admission: the Go kubelet's predicate admit handler (pkg/kubelet/lifecycle/
 * predicate.go, predicateAdmitHandler.Admit and generalFilter, over the scheduler's AdmissionCheck).
 * Checked in Go's order; the first failure is the pod's reason:
 *   1. the pod's `kubernetes.io/os` label, when it has one, must be the node's OS
 *      → PodOSSelectorNodeLabelDoesNotMatch (Go compares with its runtime.GOOS whatever the
 *      node's label says: our node's operatingSystem);
 *   2. spec.os.name, when set, must be the node's OS → PodOSNotSupported;
 *   2a. securityContext.supplementalGroupsPolicy Strict → SupplementalGroupsPolicyNotSupported (no
 *      runtime here reports it can); then, kubelet-ts's own, a field of a v1.35 feature it lacks →
 *      PodFeatureNotSupported (lacked-features.ts);
 *   3. resources (NodeResourcesFit): one more pod must fit the allocatable pod count, and each
 *      resource the pod requests (cpu, memory, ephemeral-storage, then the scalar resources by
 *      name) must fit in allocatable minus what the active pods request → OutOf<resource>
 *      (OutOfpods, OutOfcpu, OutOfmemory, OutOfephemeral-storage, OutOfhugepages-2Mi…) with
 *      `Node didn't have enough resource: <name>, requested: N, used: N, capacity: N` (cpu in
 *      millicores, capacity = allocatable). Extended resources the node does not have are not
 *      checked (removeMissingExtendedResources); the admission node carries none: a device plugin's
 *      resource is decided before, by the resource managers' admission (device-provider.ts);
 *   4. NodeAffinity: spec.nodeSelector and required node affinity (node-selector.ts);
 *   5. NodeName: spec.nodeName, when set, must be this node's name;
 *   6. NodePorts: no wanted host port may be held by an active pod (host-ports.ts);
 *   7. TaintToleration: for pods that are not static, every NoExecute taint of the node must be
 *      tolerated (NoSchedule and PreferNoSchedule are the scheduler's).
 * Predicate failures (4–7) are reason = the predicate's name, message `Predicate <name> failed:
 * <the scheduler's reason text>`. A refused pod's status is phase Failed with the reason and
 * `Pod was rejected: <message>` (rejectPod), and its QoS class.
 *
 * The eviction manager's and the sysctls' admit handlers run before these (domain/eviction/
 * admission.ts, sysctls.ts, called by the syncLoop). Not built (Go has them): the other admit
 * handlers (the resource managers' allocation, shutdown, AppArmor, pod features); preemption of
 * lower-priority pods to make room for a critical pod that did not fit (Go's
 * CriticalPodAdmissionHandler); and the NotEvictPodOnKubeletRestart gate's skipped checks.
 * When node affinity alone failed (refusedOnlyForNodeAffinity), Go filters once more against the
 * Node read again from the API server; the syncLoop does that with the nodeStatus's fresh read.
 */
import { LABEL_OS } from '../node-status/initial-node.js';
import type { NodeResources } from '../resources/allocatable.js';
import type { AdmissionNode } from './admission-node.js';
import { hostPortTaken, podHostPorts } from './host-ports.js';
import { lackedFeaturesMessage, lackedPodFields, REASON_POD_FEATURE_NOT_SUPPORTED } from './lacked-features.js';
import { matchesRequiredNodeAffinity } from './node-selector.js';
import type { NodeUsage } from './node-usage.js';
import { observedGenerationField, observedGenerationOf } from './observed-generation.js';
import { isStaticPod } from './phase.js';
import { podQOS } from './qos.js';
import { podRequests } from './resource-requests.js';
import { isExtendedResourceName } from './resource-names.js';
import { findUntoleratedTaint } from './tolerations.js';
import type { Pod, PodStatus } from './types.js';

export type AdmissionResult = { admit: true } | { admit: false; reason: string; message: string };

export const REASON_OS_SELECTOR = 'PodOSSelectorNodeLabelDoesNotMatch';
export const REASON_OS_NOT_SUPPORTED = 'PodOSNotSupported';
export const REASON_SUPPLEMENTAL_GROUPS_POLICY = 'SupplementalGroupsPolicyNotSupported';

/** The scheduler plugins' names and Filter reasons, as predicate failures carry them. */
export const PREDICATES = {
  NodeAffinity: "node(s) didn't match Pod's node affinity/selector",
  NodeName: "node(s) didn't match the requested node name",
  NodePorts: "node(s) didn't have free ports for the requested pod ports",
  TaintToleration: "node(s) had taints that the pod didn't tolerate",
} as const;

const refuse = (reason: string, message: string): AdmissionResult => ({ admit: false, reason, message });
const predicateFailed = (name: keyof typeof PREDICATES): AdmissionResult => refuse(name, `Predicate ${name} failed: ${PREDICATES[name]}`);

function allocatableByName(a: NodeResources): Record<string, number> {
  return { cpu: a.cpuMillis, memory: a.memoryBytes, 'ephemeral-storage': a.ephemeralStorageBytes, pods: a.pods };
}

/** The first resource that does not fit (Go lists them all and reports the first). */
function insufficientResource(pod: Pod, node: AdmissionNode, usage: NodeUsage): AdmissionResult | null {
  const insufficient = (name: string, requested: number, used: number, capacity: number) =>
    refuse(`OutOf${name}`, `Node didn't have enough resource: ${name}, requested: ${requested}, used: ${used}, capacity: ${capacity}`);
  const allocatable = allocatableByName(node.allocatable);
  if (usage.pods + 1 > node.allocatable.pods) return insufficient('pods', 1, usage.pods, node.allocatable.pods);
  const requests = podRequests(pod);
  const fixed = ['cpu', 'memory', 'ephemeral-storage'];
  const scalars = Object.keys(requests).filter((n) => !fixed.includes(n) && !(isExtendedResourceName(n) && !(n in allocatable))).sort();
  for (const name of [...fixed, ...scalars]) {
    const requested = requests[name] ?? 0;
    const used = usage.requested[name] ?? 0;
    const capacity = allocatable[name] ?? 0;
    if (requested > 0 && requested > capacity - used) return insufficient(name, requested, used, capacity);
  }
  return null;
}

/** Go's generalFilter: every failure of checks 3–7 in order (the resources give at most one). */
function generalFilter(pod: Pod, node: AdmissionNode, usage: NodeUsage): AdmissionResult[] {
  const failures: AdmissionResult[] = [];
  const resources = insufficientResource(pod, node, usage);
  if (resources) failures.push(resources);
  if (!matchesRequiredNodeAffinity(pod, node)) failures.push(predicateFailed('NodeAffinity'));
  if (pod.spec.nodeName && pod.spec.nodeName !== node.name) failures.push(predicateFailed('NodeName'));
  if (podHostPorts(pod).some((p) => hostPortTaken(usage.hostPorts, p))) failures.push(predicateFailed('NodePorts'));
  if (!isStaticPod(pod) && findUntoleratedTaint(node.taints, pod.spec.tolerations ?? [], (t) => t.effect === 'NoExecute')) {
    failures.push(predicateFailed('TaintToleration'));
  }
  return failures;
}

/** The OS checks (1–2), which come before the general filter and end admission there. */
function osRefusal(pod: Pod, node: AdmissionNode): AdmissionResult | null {
  const osLabel = pod.metadata.labels?.[LABEL_OS];
  if (osLabel !== undefined && osLabel !== node.operatingSystem) {
    return refuse(REASON_OS_SELECTOR, 'Failed to admit pod as the `kubernetes.io/os` label doesn\'t match node label');
  }
  if (pod.spec.os && pod.spec.os.name !== node.operatingSystem) {
    return refuse(REASON_OS_NOT_SUPPORTED, "Failed to admit pod as the OS field doesn't match node OS");
  }
  return null;
}

/**
 * Go's SupplementalGroupsPolicy check: Strict needs a node whose runtime says it can keep the image's
 * groups out (status.features.supplementalGroupsPolicy). kubelet-ts reports no such feature, as Go
 * does over containerd before 2.0, so Strict is refused; Merge (or unset) is what every runtime does.
 */
function supplementalGroupsRefusal(pod: Pod): AdmissionResult | null {
  if (pod.spec.securityContext?.supplementalGroupsPolicy !== 'Strict') return null;
  return refuse(REASON_SUPPLEMENTAL_GROUPS_POLICY, 'SupplementalGroupsPolicy=Strict is not supported in this node');
}

/** A field of a feature kubelet-ts lacks (lacked-features.ts): refused rather than dropped. */
function lackedFeatureRefusal(pod: Pod, node: AdmissionNode): AdmissionResult | null {
  const fields = lackedPodFields(pod, { dynamicResources: node.dynamicResources === true });
  return fields.length === 0 ? null : refuse(REASON_POD_FEATURE_NOT_SUPPORTED, lackedFeaturesMessage(fields));
}

/** The checks that come before the general filter and end admission there. */
function preFilterRefusal(pod: Pod, node: AdmissionNode): AdmissionResult | null {
  return osRefusal(pod, node) ?? supplementalGroupsRefusal(pod) ?? lackedFeatureRefusal(pod, node);
}

/** Whether the node takes the pod, beside the active pods' `usage`; see the file comment. */
export function admitPod(pod: Pod, node: AdmissionNode, usage: NodeUsage): AdmissionResult {
  return preFilterRefusal(pod, node) ?? generalFilter(pod, node, usage)[0] ?? { admit: true };
}

/**
 * Go's predicate handler reads the Node again from the API server, and filters once more, when
 * node affinity is the only thing the general filter refused: labels added to the Node a moment
 * ago may not have reached the kubelet's copy yet.
 */
export function refusedOnlyForNodeAffinity(pod: Pod, node: AdmissionNode, usage: NodeUsage): boolean {
  if (preFilterRefusal(pod, node)) return false;
  const failures = generalFilter(pod, node, usage);
  return failures.length > 0 && failures.every((f) => !f.admit && f.reason === 'NodeAffinity');
}

/** rejectPod's status: Failed, the reason, `Pod was rejected: <message>`, the QoS class kept. */
export function rejectedPodStatus(pod: Pod, rejection: { reason: string; message: string }): PodStatus {
  const status: PodStatus = {
    ...observedGenerationField(observedGenerationOf(pod, pod.status)),
    phase: 'Failed', reason: rejection.reason, message: `Pod was rejected: ${rejection.message}`,
  };
  try {
    status.qosClass = podQOS(pod);
  } catch {
    // A quantity that does not parse: no class rather than a thrown machine action.
  }
  return status;
}
