/**
 * What a pod asks of its node, as the scheduler's NodeResourcesFit and the kubelet's admission
 * count it (component-helpers resource.PodRequests, then the scheduler's framework.Resource):
 *   - the containers' requests, summed;
 *   - the init containers' peak: each init container runs beside the sidecars (restartable init
 *     containers) started before it, and a sidecar keeps running beside the containers, so a
 *     sidecar's requests join the sum and every init container's `own + sidecars so far` is a
 *     candidate for the peak; the pod asks the larger of the sum and the peak, per resource;
 *   - pod-level requests (spec.resources: cpu, memory, hugepages-*) stand for that figure when set;
 *   - the pod overhead (RuntimeClass) is added.
 * Amounts are integers as Go's admission compares them: cpu in millicores (MilliValue), every
 * other resource in whole units (Value), both rounded up. Only names the scheduler counts are
 * kept (resource-names.ts). A quantity that does not parse counts as absent: validation refuses
 * such manifests before they get here, and a machine must not throw on a bad pod.
 */
import { addQuantities, compareQuantities, parseQuantity, quantityMilliValue, quantityValue, type Quantity } from '../resources/quantity.js';
import { isScalarResourceName } from './resource-names.js';
import type { Container, Pod, ResourceList } from './types.js';

/** Amounts by resource name: `cpu` in millicores, the others in their units (bytes, counts). */
export type ResourceAmounts = Record<string, number>;

type Quantities = Map<string, Quantity>;

function parsed(list: ResourceList | undefined): Quantities {
  const out: Quantities = new Map();
  for (const [name, text] of Object.entries(list ?? {})) {
    try {
      out.set(name, parseQuantity(text));
    } catch {
      // Not a quantity: left out (see the file comment).
    }
  }
  return out;
}

function add(into: Quantities, more: Quantities): void {
  for (const [name, q] of more) {
    const sum = into.get(name);
    into.set(name, sum ? addQuantities(sum, q) : q);
  }
}

function keepMax(into: Quantities, other: Quantities): void {
  for (const [name, q] of other) {
    const current = into.get(name);
    if (!current || compareQuantities(q, current) > 0) into.set(name, q);
  }
}

const isSidecar = (c: Container) => c.restartPolicy === 'Always';
const isPodLevelResource = (name: string) => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');

/**
 * What to leave out of a pod's totals: the overhead, for the sandbox's own resources
 * (ExcludeOverhead); the pod-level figures, for what the containers alone ask (AggregateContainerRequests).
 */
export interface PodTotalsOptions { excludeOverhead?: boolean; excludePodLevel?: boolean }

/** Go's IsPodLevelRequestsSet: spec.resources requests a resource that may be set per pod. */
export function isPodLevelRequestsSet(pod: Pod): boolean {
  return Object.keys(pod.spec.resources?.requests ?? {}).some(isPodLevelResource);
}

/** Go's IsPodLevelResourcesSet: spec.resources requests or limits a resource that may be set per pod. */
export function isPodLevelResourcesSet(pod: Pod): boolean {
  return isPodLevelRequestsSet(pod) || Object.keys(pod.spec.resources?.limits ?? {}).some(isPodLevelResource);
}

/** The pod's requests (see the file comment); a resource it does not request is absent. */
export function podRequests(pod: Pod, opts: PodTotalsOptions = {}): ResourceAmounts {
  return podTotals(pod, 'requests', opts);
}

/**
 * The pod's limits, summed the same way (component-helpers resource.PodLimits): containers plus
 * sidecars, the init peak, pod-level limits standing for the sum; the overhead is added only to a
 * resource that has a limit, so an unlimited resource stays unlimited. What the pod cgroup's cpu
 * quota and memory limit come from (pkg/kubelet/cm ResourceConfigForPod).
 */
export function podLimits(pod: Pod, opts: PodTotalsOptions = {}): ResourceAmounts {
  return podTotals(pod, 'limits', opts);
}

function podTotals(pod: Pod, kind: 'requests' | 'limits', opts: PodTotalsOptions): ResourceAmounts {
  const total: Quantities = new Map();
  for (const c of pod.spec.containers) add(total, parsed(c.resources?.[kind]));
  const sidecars: Quantities = new Map();
  const initPeak: Quantities = new Map();
  for (const c of pod.spec.initContainers ?? []) {
    const own = parsed(c.resources?.[kind]);
    if (isSidecar(c)) {
      add(total, own);
      add(sidecars, own);
      keepMax(initPeak, sidecars);
    } else {
      const use: Quantities = new Map(own);
      add(use, sidecars);
      keepMax(initPeak, use);
    }
  }
  keepMax(total, initPeak);
  const podLevel = parsed(opts.excludePodLevel ? undefined : pod.spec.resources?.[kind]);
  for (const [name, q] of podLevel) if (isPodLevelResource(name)) total.set(name, q);
  const overhead = parsed(opts.excludeOverhead ? undefined : pod.spec.overhead);
  if (kind === 'limits') {
    for (const name of [...overhead.keys()]) if (!total.has(name)) overhead.delete(name);
  }
  add(total, overhead);

  const amounts: ResourceAmounts = {};
  for (const [name, q] of total) {
    if (name === 'cpu') amounts[name] = Number(quantityMilliValue(q));
    else if (name === 'memory' || name === 'ephemeral-storage' || isScalarResourceName(name)) amounts[name] = Number(quantityValue(q));
  }
  return amounts;
}
