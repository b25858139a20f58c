/**
 * A pod's QoS class, as the Go kubelet computes it (pkg/apis/core/v1/helper/qos ComputePodQOS).
 *
 * Only cpu and memory count. A pod is Guaranteed when every container (init ones included) sets both
 * cpu and memory limits and the summed requests equal the summed limits; BestEffort when nothing is
 * requested or limited; Burstable otherwise. Requests are compared as given: the API server (or the
 * pod source, for static pods) defaults missing requests to the limits before we see the pod.
 * Pod-level resources (a 1.32 alpha feature) are not considered.
 */
import type { Container, Pod, PodQOSClass } from './types.js';
import { addQuantities, compareQuantities, parseQuantity, zeroQuantity, type Quantity } from '../resources/quantity.js';

const qosResources = ['cpu', 'memory'] as const;

function sumPositive(into: Map<string, Quantity>, list: Record<string, string> | undefined): Set<string> {
  const found = new Set<string>();
  for (const name of qosResources) {
    const text = list?.[name];
    if (text === undefined) continue;
    const q = parseQuantity(text);
    if (compareQuantities(q, zeroQuantity) <= 0) continue;
    found.add(name);
    const sum = into.get(name);
    into.set(name, sum ? addQuantities(sum, q) : q);
  }
  return found;
}

export function computePodQOS(pod: Pod): PodQOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let isGuaranteed = true;
  const containers: Container[] = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  for (const c of containers) {
    sumPositive(requests, c.resources?.requests);
    const limitsFound = sumPositive(limits, c.resources?.limits);
    if (!limitsFound.has('cpu') || !limitsFound.has('memory')) isGuaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (isGuaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (!limit || compareQuantities(limit, request) !== 0) {
        isGuaranteed = false;
        break;
      }
    }
  }
  return isGuaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** The status's class when the API server already set it (Go's GetPodQOS), computed otherwise. */
export function podQOS(pod: Pod): PodQOSClass {
  return pod.status?.qosClass ?? computePodQOS(pod);
}
