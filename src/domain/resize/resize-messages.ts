/**
 * The messages of Go's resize events (ResizeStarted, ResizeCompleted, ResizeError, ResizeDeferred,
 * ResizeInfeasible): a prefix, then the pod's resources as JSON, init containers and containers by
 * name, the pod's generation, and the error when there is one. Tools that read the events parse that
 * JSON, so its shape and key order are Go's: `limits` before `requests`, resource names sorted.
 */
import type { Container, Pod, ResourceList, ResourceRequirements } from '../pod/types.js';
import { byFirstCodeUnits } from '../text/code-unit-order.js';

function sortedList(list: ResourceList): ResourceList {
  return Object.fromEntries(Object.entries(list).sort(byFirstCodeUnits));
}

function resourcesJson(r: ResourceRequirements | undefined): Record<string, unknown> {
  return {
    ...(r?.limits && Object.keys(r.limits).length > 0 ? { limits: sortedList(r.limits) } : {}),
    ...(r?.requests && Object.keys(r.requests).length > 0 ? { requests: sortedList(r.requests) } : {}),
    ...(r?.claims && r.claims.length > 0 ? { claims: r.claims } : {}),
  };
}

const entries = (containers: readonly Container[]) => containers.map((c) => ({ name: c.name, resources: resourcesJson(c.resources) }));

function summary(pod: Pod, generation: number, error: string): string {
  const inits = pod.spec.initContainers ?? [];
  return JSON.stringify({
    ...(inits.length > 0 ? { initContainers: entries(inits) } : {}),
    ...(pod.spec.containers.length > 0 ? { containers: entries(pod.spec.containers) } : {}),
    generation,
    ...(error ? { error } : {}),
  });
}

export type ResizeEventReason = 'ResizeStarted' | 'ResizeCompleted' | 'ResizeError' | 'ResizeDeferred' | 'ResizeInfeasible';

const prefixes: Record<Exclude<ResizeEventReason, 'ResizeDeferred' | 'ResizeInfeasible'>, string> = {
  ResizeStarted: 'Pod resize started',
  ResizeCompleted: 'Pod resize completed',
  ResizeError: 'Pod resize error',
};

/** Started, completed or error: about the allocated pod; `error` only for ResizeError. */
export function resizeProgressMessage(reason: keyof typeof prefixes, allocatedPod: Pod, generation: number, error = ''): string {
  return `${prefixes[reason]}: ${summary(allocatedPod, generation, error)}`;
}

/** Deferred or infeasible: about the pod as it asks, with the reason's message. */
export function resizePendingMessage(pod: Pod, reason: 'Deferred' | 'Infeasible', message: string, generation: number): string {
  return `Pod resize ${reason}: ${summary(pod, generation, message)}`;
}
