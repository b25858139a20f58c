/**
 * What the pods already admitted hold on the node, as admission counts it (the scheduler's
 * NodeInfo built from the kubelet's active pods): how many there are, the sum of their requests
 * (resource-requests.ts, overhead included) and the host ports they hold (host-ports.ts). Built
 * once per batch of additions and grown as each pod is admitted, so admitting n pods reads each
 * pod's requests once rather than n times.
 */
import { podHostPorts, type HostPortUse } from './host-ports.js';
import { podRequests, type ResourceAmounts } from './resource-requests.js';
import type { Pod } from './types.js';

export interface NodeUsage {
  pods: number;
  requested: Readonly<ResourceAmounts>;
  hostPorts: readonly HostPortUse[];
}

export const EMPTY_USAGE: NodeUsage = { pods: 0, requested: {}, hostPorts: [] };

/** The usage with one more pod on the node. */
export function withPod(usage: NodeUsage, pod: Pod): NodeUsage {
  const requested: ResourceAmounts = { ...usage.requested };
  for (const [name, amount] of Object.entries(podRequests(pod))) requested[name] = (requested[name] ?? 0) + amount;
  const ports = podHostPorts(pod);
  return { pods: usage.pods + 1, requested, hostPorts: ports.length > 0 ? [...usage.hostPorts, ...ports] : usage.hostPorts };
}

export function usageOf(pods: Iterable<Pod>): NodeUsage {
  let usage = EMPTY_USAGE;
  for (const pod of pods) usage = withPod(usage, pod);
  return usage;
}
