/**
 * The eviction manager's words (Go: pkg/kubelet/eviction/helpers.go evictionMessage and
 * eviction_manager.go): the evicted pod's status message and event, the node event, the admission
 * refusal. Quantities print as Go's resource.Quantity does: computed amounts in BinarySI's
 * canonical form, configured ones canonical in their own format.
 */
import { binaryQuantity } from '../node-status/quantity-format.js';
import { quantityNumber as quantityOf } from '../resources/quantity.js';
import type { PodCondition } from '../pod/types.js';
import type { EvictionCandidate } from './candidates.js';
import type { Observations } from './observations.js';
import { SIGNAL_RESOURCE, type PressureCondition, type StarvedResource } from './signals.js';
import { thresholdQuantity, type Threshold } from './thresholds.js';

/** The pod status reason and the event reason of an eviction and of an eviction refusal. */
export const EVICTED_REASON = 'Evicted';
/** The node event when a threshold is acted on. */
export const THRESHOLD_MET_REASON = 'EvictionThresholdMet';

const DECIMAL_SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;

/** A whole amount in DecimalSI's canonical form ("1500", "1M", "2G"). */
function decimalQuantity(v: number): string {
  let i = 0;
  while (v !== 0 && i < DECIMAL_SUFFIXES.length - 1 && v % 1000 === 0) {
    v /= 1000;
    i++;
  }
  return `${v}${DECIMAL_SUFFIXES[i]}`;
}

/** A configured amount as Go prints it (canonical in its own format): binary suffixes stay binary, the rest is DecimalSI. */
export function configuredQuantity(value: { quantity: number; text: string }): string {
  return /i$/.test(value.text) ? binaryQuantity(value.quantity) : decimalQuantity(value.quantity);
}

/** Go's getThresholdMetInfo: the first met threshold of this resource, its quantity and what was available. */
function thresholdMetInfo(resource: StarvedResource, thresholds: readonly Threshold[], observations: Observations): { quantity: string; available: string } | null {
  for (const t of thresholds) {
    const observed = observations[t.signal];
    if (SIGNAL_RESOURCE[t.signal] !== resource || !observed) continue;
    const quantity = 'quantity' in t.value ? configuredQuantity(t.value) : binaryQuantity(thresholdQuantity(t.value, observed.capacity));
    return { quantity, available: binaryQuantity(observed.available) };
  }
  return null;
}

function containerUsage(resource: StarvedResource, c: EvictionCandidate, name: string): number | undefined {
  const usage = c.usage?.containers.find((u) => u.name === name);
  if (resource === 'memory') return usage?.workingSetBytes;
  if (resource === 'ephemeral-storage') return usage?.diskBytes;
  return undefined;
}

export interface EvictionMessage {
  message: string;
  /** Go's event annotations: offending_containers, offending_containers_usage, starved_resource. */
  annotations: Record<string, string>;
}

/**
 * "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. Container c
 * was using 20Mi, request is 0, has larger consumption of memory. "
 */
export function evictionMessage(resource: StarvedResource, pod: EvictionCandidate, thresholds: readonly Threshold[], observations: Observations): EvictionMessage {
  let message = `The node was low on resource: ${resource}. `;
  const met = thresholdMetInfo(resource, thresholds, observations);
  if (met) message += `Threshold quantity: ${met.quantity}, available: ${met.available}. `;
  if (!pod.usage) return { message, annotations: {} };
  const offending: string[] = [];
  const usages: string[] = [];
  // Go walks the stats' containers, matching each to the spec.
  for (const stats of pod.usage.containers) {
    const spec = pod.containerRequests.find((c) => c.name === stats.name);
    if (!spec) continue;
    const used = containerUsage(resource, pod, stats.name);
    const requestText = resource === 'memory' || resource === 'ephemeral-storage' ? spec[resource] : undefined;
    const request = requestText === undefined ? 0 : (quantityOf(requestText) ?? 0);
    if (used === undefined || used <= request) continue;
    message += `Container ${stats.name} was using ${binaryQuantity(used)}, request is ${requestText ?? '0'}, has larger consumption of ${resource}. `;
    offending.push(stats.name);
    usages.push(binaryQuantity(used));
  }
  return {
    message,
    annotations: { offending_containers: offending.join(','), offending_containers_usage: usages.join(','), starved_resource: resource },
  };
}

/** Go's DisruptionTarget condition on an evicted pod (reason TerminationByKubelet, the eviction message). */
export function disruptionTargetCondition(message: string): PodCondition {
  return { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message };
}

/** Go's admission refusal: "The node had condition: [MemoryPressure]. " (conditions space-separated). */
export function nodeConditionMessage(conditions: readonly PressureCondition[]): string {
  return `The node had condition: [${conditions.join(' ')}]. `;
}

/** The node event's message (Go: "Attempting to reclaim %s"). */
export function thresholdMetMessage(resource: StarvedResource): string {
  return `Attempting to reclaim ${resource}`;
}
