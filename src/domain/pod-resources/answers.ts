/**
 * The pod resources API's answers (Go's v1PodResourcesServer: List, Get, GetAllocatableResources),
 * built from the pods, the resource managers' assignments and what the node can give. Field names
 * are the proto's (proto/podresources/v1/api.proto), so the server sends these objects as they are.
 *
 * As Go: a pod's containers are its restartable init containers (sidecars) then its app
 * containers; a container holds its devices (one entry per device and NUMA node, or one without
 * topology for a device whose plugin gives none), its exclusive CPUs (none in the shared pool) and
 * its pinned memory. Go walks maps here; kubelet-ts sorts by resource name and device ID, so the
 * same state always gives the same answer. Lookups go through the state's index (state-index.ts),
 * which a caller answering many calls at one state builds once.
 */
import { byCodeUnits } from '../text/code-unit-order.js';
import type { Container, Pod } from '../pod/types.js';
import { isRestartableInitContainer } from '../runtime/init-containers.js';
import type { Assignments, ContainerAssignment } from '../resource-managers/assignments.js';
import type { DeviceInventoryEntry } from '../resource-managers/inventory.js';
import type { NodeAllocatable } from './node-allocatable.js';
import type { ClaimInfo } from '../dra/claim-info.js';
import { indexState, nameKey, namespaceOf, type StateIndex } from './state-index.js';

export interface TopologyAnswer { nodes: { ID: number }[] }
export interface ContainerDevicesAnswer { resource_name: string; device_ids: string[]; topology?: TopologyAnswer }
export interface ContainerMemoryAnswer { memory_type: string; size: number; topology: TopologyAnswer }
export interface ClaimResourceAnswer { cdi_devices: { name: string }[]; driver_name: string; pool_name: string; device_name: string; share_id?: string }
export interface DynamicResourceAnswer { claim_name: string; claim_namespace: string; claim_resources: ClaimResourceAnswer[] }
export interface ContainerResourcesAnswer {
  name: string;
  devices: ContainerDevicesAnswer[];
  cpu_ids: number[];
  memory: ContainerMemoryAnswer[];
  /** The DRA claims the container uses (KubeletPodResourcesDynamicResources); absent without DRA. */
  dynamic_resources?: DynamicResourceAnswer[];
}
export interface PodResourcesAnswer { name: string; namespace: string; containers: ContainerResourcesAnswer[] }
export interface AllocatableAnswer { devices: ContainerDevicesAnswer[]; cpu_ids: number[]; memory: ContainerMemoryAnswer[] }

export interface ListAnswer { pod_resources: PodResourcesAnswer[] }
export type GetResult = { ok: true; answer: { pod_resources: PodResourcesAnswer } } | { ok: false; message: string };

/** A pod the kubelet knows (Go's pod manager), and whether it is active (Go's GetActivePods). */
export interface KnownPod { pod: Pod; active: boolean }

/** What the answers are built from: a snapshot of the kubelet's state at the call. */
export interface PodResourcesState {
  pods: readonly KnownPod[];
  assignments: Assignments;
  allocatable: NodeAllocatable;
  /** The DRA claims a container uses as the claim manager keeps them; absent: no DRA (standalone, or the gate off). */
  dynamicResources?: (pod: Pod, container: Container) => readonly ClaimInfo[];
}

/** Go's message when Get is called with the KubeletPodResourcesGet gate off. */
export const GET_DISABLED_MESSAGE = 'PodResources API Get method disabled';

/** Go's message when Get names a pod the kubelet does not know. */
export function podNotFoundMessage(name: string, namespace: string): string {
  return `pod ${name} in namespace ${namespace} not found`;
}

const topologyOf = (numaNodes: readonly number[]): TopologyAnswer => ({ nodes: numaNodes.map((ID) => ({ ID })) });

/** Go's containerDevicesFromResourceDeviceInstances: one entry per device and NUMA node; a device without NUMA nodes, one without topology. */
function deviceEntries(resource: string, devices: readonly Pick<DeviceInventoryEntry, 'id' | 'numaNodes'>[]): ContainerDevicesAnswer[] {
  return [...devices].sort((a, b) => byCodeUnits(a.id, b.id)).flatMap((d) =>
    d.numaNodes.length === 0
      ? [{ resource_name: resource, device_ids: [d.id] }]
      : d.numaNodes.map((node) => ({ resource_name: resource, device_ids: [d.id], topology: topologyOf([node]) })));
}

function containerDevices(assigned: ContainerAssignment['devices'], index: StateIndex): ContainerDevicesAnswer[] {
  return Object.keys(assigned ?? {}).sort(byCodeUnits).flatMap((resource) => {
    const known = index.numaNodes.get(resource);
    // A device whose plugin has gone keeps its ID; its NUMA nodes went with the plugin.
    const devices = (assigned?.[resource] ?? []).map((id) => ({ id, numaNodes: known?.get(id) ?? [] }));
    return deviceEntries(resource, devices);
  });
}

function containerMemory(memory: ContainerAssignment['memory']): ContainerMemoryAnswer[] {
  if (!memory) return [];
  return Object.keys(memory.bytes).sort(byCodeUnits).map((type) => ({ memory_type: type, size: memory.bytes[type] ?? 0, topology: topologyOf(memory.numaNodes) }));
}

/**
 * Go's GetDynamicResources: each claim the container uses, with one entry per prepared device (its
 * driver, pool, name, share id and CDI devices). Go gives a device the CDI devices of every device
 * of its driver listed before it too (a slice it never resets); here each device has its own.
 */
function dynamicResources(claims: readonly ClaimInfo[]): DynamicResourceAnswer[] {
  return claims.map((info) => ({
    claim_name: info.claimName,
    claim_namespace: info.namespace,
    claim_resources: Object.keys(info.drivers).sort(byCodeUnits).flatMap((driver) => info.drivers[driver]!.devices.map((d) => ({
      cdi_devices: d.cdiDeviceIds.map((name) => ({ name })),
      driver_name: driver,
      pool_name: d.poolName,
      device_name: d.deviceName,
      ...(d.shareId !== undefined ? { share_id: d.shareId } : {}),
    }))),
  }));
}

function containerResources(pod: Pod, container: Container, index: StateIndex): ContainerResourcesAnswer {
  const assigned = index.state.assignments[pod.metadata.uid ?? '']?.[container.name] ?? {};
  const claims = index.state.dynamicResources?.(pod, container);
  return {
    name: container.name,
    devices: containerDevices(assigned.devices, index),
    cpu_ids: [...(assigned.cpus ?? [])],
    memory: containerMemory(assigned.memory),
    ...(claims ? { dynamic_resources: dynamicResources(claims) } : {}),
  };
}

export function podResources(pod: Pod, index: StateIndex): PodResourcesAnswer {
  const sidecars = (pod.spec.initContainers ?? []).filter(isRestartableInitContainer);
  return {
    name: pod.metadata.name,
    namespace: namespaceOf(pod),
    containers: [...sidecars, ...pod.spec.containers].map((c) => containerResources(pod, c, index)),
  };
}

/** List: every active pod (every known pod when KubeletPodResourcesListUseActivePods is off). */
export function listAnswer(state: PodResourcesState, useActivePods: boolean, index: StateIndex = indexState(state)): ListAnswer {
  return { pod_resources: state.pods.filter((p) => p.active || !useActivePods).map((p) => podResources(p.pod, index)) };
}

/** Get: one pod by namespace and name (an active one first, as one name is one pod in Go's pod manager), or Go's error text. */
export function getAnswer(state: PodResourcesState, namespace: string, name: string, index: StateIndex = indexState(state)): GetResult {
  const named = index.byName.get(nameKey(namespace, name)) ?? [];
  const hit = named.find((p) => p.active) ?? named[0];
  if (!hit) return { ok: false, message: podNotFoundMessage(name, namespace) };
  return { ok: true, answer: { pod_resources: podResources(hit.pod, index) } };
}

/** GetAllocatableResources: the healthy devices, the CPUs and the memory the node can give. */
export function allocatableAnswer(allocatable: NodeAllocatable): AllocatableAnswer {
  return {
    devices: Object.keys(allocatable.devices).sort(byCodeUnits).flatMap((resource) =>
      deviceEntries(resource, (allocatable.devices[resource] ?? []).filter((d) => d.healthy))),
    cpu_ids: [...allocatable.cpus].sort((a, b) => a - b),
    memory: [...allocatable.memory]
      .sort((a, b) => a.numaNode - b.numaNode || byCodeUnits(a.type, b.type))
      .map((m) => ({ memory_type: m.type, size: m.bytes, topology: topologyOf([m.numaNode]) })),
  };
}
