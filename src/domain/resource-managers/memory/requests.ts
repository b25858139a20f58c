/**
 * What a container and a pod ask of the Static memory manager (Go: the static policy's
 * getRequestedResources and getPodRequestedResources): the `memory` and `hugepages-<size>` requests,
 * in bytes. A pod needs the larger of its biggest init container and the sum of its app containers.
 */
import type { Container, Pod } from '../../pod/types.js';
import { quantityValue, tryParseQuantity } from '../../resources/quantity.js';
import { isMemoryResource } from './machine-state.js';

export type MemoryRequests = Record<string, number>;

export type MemoryRequestsResult = { ok: true; requests: MemoryRequests } | { ok: false; error: string };

/** Bytes per memory resource; a request that is no whole number of bytes is Go's error. */
export function containerMemoryRequests(container: Container): MemoryRequestsResult {
  const out: MemoryRequests = {};
  for (const [name, text] of Object.entries(container.resources?.requests ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!isMemoryResource(name)) continue;
    const q = tryParseQuantity(text);
    if (q === undefined || q.num % q.den !== 0n) return { ok: false, error: '[memorymanager] failed to represent quantity as int64' };
    out[name] = Number(quantityValue(q));
  }
  return { ok: true, requests: out };
}

export function podMemoryRequests(pod: Pod): MemoryRequestsResult {
  const initMax: MemoryRequests = {};
  for (const c of pod.spec.initContainers ?? []) {
    const r = containerMemoryRequests(c);
    if (!r.ok) return r;
    for (const [name, size] of Object.entries(r.requests)) initMax[name] = Math.max(initMax[name] ?? 0, size);
  }
  const apps: MemoryRequests = {};
  for (const c of pod.spec.containers) {
    const r = containerMemoryRequests(c);
    if (!r.ok) return r;
    for (const [name, size] of Object.entries(r.requests)) apps[name] = (apps[name] ?? 0) + size;
  }
  for (const name of Object.keys(apps)) apps[name] = Math.max(apps[name] ?? 0, initMax[name] ?? 0);
  return { ok: true, requests: apps };
}
