/**
 * What the kubelet allocated to a pod's containers (Go's allocation manager): the resources it
 * admitted them with, which can trail the spec while a resize waits. Regular containers and sidecars
 * (restartable init containers) are resizable; classic init containers have run to completion and
 * keep what they ran with.
 *
 * A pod that was never resized needs no record: its spec is its allocation. The syncLoop keeps one
 * from the first time the spec's resources leave the allocation until the pod goes, so a kubelet
 * restart neither loses an allocation that trails the spec nor takes an unadmitted resize as given.
 */
import { compareQuantities, tryParseQuantity } from '../resources/quantity.js';
import type { Container, Pod, ResourceList, ResourceRequirements } from '../pod/types.js';

/** Allocated requests and limits by container name. */
export type PodAllocation = Record<string, ResourceRequirements>;

const isSidecar = (c: Container): boolean => c.restartPolicy === 'Always';

/** The containers whose resources can change in place, in the spec's order (sidecars first, as Go iterates). */
export function resizableContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []).filter(isSidecar), ...pod.spec.containers];
}

/** Only requests and limits: a container's claims are not resources the kubelet allocates here. */
function requirementsOf(c: Container): ResourceRequirements {
  const r = c.resources ?? {};
  return { ...(r.requests ? { requests: { ...r.requests } } : {}), ...(r.limits ? { limits: { ...r.limits } } : {}) };
}

/** The allocation a pod's spec asks for (Go's allocationFromPod). */
export function allocationFromPod(pod: Pod): PodAllocation {
  return Object.fromEntries(resizableContainers(pod).map((c) => [c.name, requirementsOf(c)]));
}

/** Two lists naming the same resources with equal quantities (Go's semantic equality: "1" equals "1000m"). */
function sameList(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const left = Object.entries(a ?? {});
  if (left.length !== Object.keys(b ?? {}).length) return false;
  return left.every(([name, text]) => {
    const other = b?.[name];
    if (other === undefined) return false;
    const x = tryParseQuantity(text);
    const y = tryParseQuantity(other);
    return x && y ? compareQuantities(x, y) === 0 : text === other;
  });
}

export function sameRequirements(a: ResourceRequirements | undefined, b: ResourceRequirements | undefined): boolean {
  return sameList(a?.requests, b?.requests) && sameList(a?.limits, b?.limits);
}

/** Every resizable container of the pod asks what the allocation holds for it. */
export function specMatchesAllocation(pod: Pod, allocation: PodAllocation): boolean {
  return resizableContainers(pod).every((c) => {
    const allocated = allocation[c.name];
    return allocated === undefined || sameRequirements(requirementsOf(c), allocated);
  });
}

/**
 * The pod with its containers' resources replaced by the allocation (Go's UpdatePodFromAllocation):
 * what the pod worker runs and what admission counts for it. The same object when nothing differs.
 */
export function allocatedPod(pod: Pod, allocation: PodAllocation | undefined): Pod {
  if (!allocation || specMatchesAllocation(pod, allocation)) return pod;
  const withAllocated = (c: Container): Container => {
    const allocated = allocation[c.name];
    if (allocated === undefined || sameRequirements(requirementsOf(c), allocated)) return c;
    return { ...c, resources: { ...(c.resources?.claims ? { claims: c.resources.claims } : {}), ...allocated } };
  };
  return {
    ...pod,
    spec: {
      ...pod.spec,
      containers: pod.spec.containers.map(withAllocated),
      ...(pod.spec.initContainers ? { initContainers: pod.spec.initContainers.map((c) => (isSidecar(c) ? withAllocated(c) : c)) } : {}),
    },
  };
}
