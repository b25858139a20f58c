/**
 * The Node's status as the kubelet reports it (Go: defaultNodeStatusFuncs in
 * kubelet_node_status.go): addresses, capacity and allocatable, nodeInfo, daemon endpoints,
 * images and conditions. One pure function builds it; another tells whether it changed in a way
 * that must be sent before the report frequency is up (Go: nodeStatusHasChanged).
 */
import type { ExtendedResourceCount } from '../device-manager/devices.js';
import type { NodeResources } from '../resources/allocatable.js';
import type { ContainerImage, NodeAddress, NodeCondition, NodeStatus, NodeSystemInfo } from './api-objects.js';
import { nodeConditions, type NodeHealth } from './node-conditions.js';
import { binaryQuantity, countQuantity, cpuQuantity } from './quantity-format.js';

/** Go: MaxNamesPerImageInNodeStatus. */
export const MAX_NAMES_PER_IMAGE = 5;

/** An image as the CRI ImageService lists it (only what the node status needs). */
export interface ListedImage {
  repoTags: string[];
  repoDigests: string[];
  sizeBytes: number;
}

/** What does not change while the kubelet runs: decided at start-up by the supervisor's phases. */
export interface NodeStaticFacts {
  hostname: string;
  /** --node-ip or the host's chosen address(es); empty: no InternalIP is reported. */
  nodeIps: string[];
  capacity: NodeResources;
  allocatable: NodeResources;
  nodeInfo: NodeSystemInfo;
  kubeletPort: number;
  /** nodeStatusMaxImages: -1 for no limit, 0 for none. */
  maxImages: number;
}

/** InternalIP per node IP, then Hostname (Go's NodeAddress setter with --node-ip or a resolved IP). */
export function nodeAddresses(hostname: string, nodeIps: readonly string[]): NodeAddress[] {
  return [...nodeIps.map((address): NodeAddress => ({ type: 'InternalIP', address })), { type: 'Hostname', address: hostname }];
}

export function resourceList(r: NodeResources): Record<string, string> {
  return {
    cpu: cpuQuantity(r.cpuMillis),
    'ephemeral-storage': binaryQuantity(r.ephemeralStorageBytes),
    memory: binaryQuantity(r.memoryBytes),
    pods: countQuantity(r.pods),
  };
}

/** Go's Images setter: largest first, at most maxImages, each with up to five names (digests first). */
export function nodeImages(images: readonly ListedImage[], maxImages: number): ContainerImage[] {
  if (maxImages === 0) return [];
  const sorted = [...images].sort((a, b) => b.sizeBytes - a.sizeBytes);
  const kept = maxImages < 0 ? sorted : sorted.slice(0, maxImages);
  return kept.map((img) => ({ names: [...img.repoDigests, ...img.repoTags].slice(0, MAX_NAMES_PER_IMAGE), sizeBytes: img.sizeBytes }));
}

export interface NodeStatusInput {
  facts: NodeStaticFacts;
  health: NodeHealth;
  images: readonly ListedImage[];
  /**
   * setVolumesInUse: the volume manager's attachable volumes in use. Sent even when empty, so a
   * strategic merge patch clears the list the last status sent.
   */
  volumesInUse?: readonly string[];
  /** The conditions last reported (or read from the existing Node), for transition times. */
  previousConditions: readonly NodeCondition[];
  nowMs: number;
  /** The device plugins' resources (capacity: every device; allocatable: the healthy ones). */
  extendedResources?: Readonly<Record<string, ExtendedResourceCount>>;
}

/** The device plugins' counts as quantities, beside the node's own resources. */
function withExtended(list: Record<string, string>, extended: NodeStatusInput['extendedResources'], which: keyof ExtendedResourceCount): Record<string, string> {
  const out = { ...list };
  for (const [name, counts] of Object.entries(extended ?? {})) out[name] = countQuantity(counts[which]);
  return out;
}

export function computeNodeStatus(input: NodeStatusInput): NodeStatus {
  const { facts } = input;
  return {
    capacity: withExtended(resourceList(facts.capacity), input.extendedResources, 'capacity'),
    allocatable: withExtended(resourceList(facts.allocatable), input.extendedResources, 'allocatable'),
    conditions: nodeConditions(input.previousConditions, input.health, input.nowMs),
    addresses: nodeAddresses(facts.hostname, facts.nodeIps),
    daemonEndpoints: { kubeletEndpoint: { Port: facts.kubeletPort } },
    nodeInfo: { ...facts.nodeInfo },
    images: nodeImages(input.images, facts.maxImages),
    ...(input.volumesInUse ? { volumesInUse: [...input.volumesInUse] } : {}),
  };
}

/** The status with every lastHeartbeatTime blanked: what must be equal for "unchanged". */
function comparable(status: NodeStatus): string {
  const conditions = (status.conditions ?? []).map((c) => ({ ...c, lastHeartbeatTime: '' }));
  return JSON.stringify({ ...status, conditions });
}

/** Go's nodeStatusHasChanged: anything but the heartbeat times differs (or nothing was sent yet). */
export function nodeStatusChanged(previous: NodeStatus | null, next: NodeStatus): boolean {
  return previous === null || comparable(previous) !== comparable(next);
}
