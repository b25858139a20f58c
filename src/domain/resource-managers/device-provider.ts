/**
 * The device manager as a resource provider (Go: ManagerImpl's GetTopologyHints,
 * GetPodTopologyHints and Allocate → allocateContainerResources → devicesToAllocate). A resource is
 * the device manager's when a plugin registered it or a container holds devices of it
 * (isDevicePluginResource); a container asks for as many devices as its limit says (extended
 * resources cannot be overcommitted, so requests equal limits). Refusals are Go's
 * UnexpectedAdmissionError, with the error devicesToAllocate gives.
 */
import { deviceTopologyHints, devicesToAllocate } from '../device-manager/allocate-devices.js';
import { quantityNumber } from '../resources/quantity.js';
import type { Container, Pod } from '../pod/types.js';
import type { ProviderContext, ResourceProvider, TopologyHint } from './admit.js';
import type { Assignments, ContainerAssignment, PodAssignment } from './assignments.js';

/** Go's admission.ErrorReasonUnexpected. */
export const UNEXPECTED_ADMISSION_ERROR = 'UnexpectedAdmissionError';

const heldIn = (pods: Assignments | PodAssignment[], resource: string): string[] => {
  const shares: (ContainerAssignment | undefined)[] = Array.isArray(pods)
    ? pods.flatMap((p) => Object.values(p))
    : Object.values(pods).flatMap((p) => Object.values(p));
  return shares.flatMap((s) => s?.devices?.[resource] ?? []);
};

function isDevicePluginResource(ctx: ProviderContext, resource: string): boolean {
  return resource in ctx.inventory.devices || heldIn(ctx.assignments, resource).length > 0 || heldIn([ctx.podAssignment], resource).length > 0;
}

/** The container's device requests: its limits the device manager serves, by name, in name order. */
function deviceRequests(ctx: ProviderContext, container: Container): [string, number][] {
  return Object.entries(container.resources?.limits ?? {})
    .filter(([name]) => isDevicePluginResource(ctx, name))
    .map(([name, q]): [string, number] => [name, Math.trunc(quantityNumber(String(q)) ?? 0)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** getPodDeviceRequest: per resource, the larger of the biggest init container's and the app containers' sum. */
function podDeviceRequests(ctx: ProviderContext, pod: Pod): [string, number][] {
  const init = new Map<string, number>();
  const app = new Map<string, number>();
  for (const c of pod.spec.initContainers ?? []) for (const [r, n] of deviceRequests(ctx, c)) init.set(r, Math.max(init.get(r) ?? 0, n));
  for (const c of pod.spec.containers) for (const [r, n] of deviceRequests(ctx, c)) app.set(r, (app.get(r) ?? 0) + n);
  const names = [...new Set([...init.keys(), ...app.keys()])].sort();
  return names.map((r) => [r, Math.max(init.get(r) ?? 0, app.get(r) ?? 0)]);
}

/** devicesToReuse: the pod's init containers' devices no app container took yet. */
function reusable(ctx: ProviderContext, resource: string): string[] {
  const initNames = new Set((ctx.pod.spec.initContainers ?? []).map((c) => c.name));
  const fromInit = Object.entries(ctx.podAssignment).filter(([n]) => initNames.has(n)).flatMap(([, a]) => a.devices?.[resource] ?? []);
  const takenByApps = Object.entries(ctx.podAssignment).filter(([n]) => !initNames.has(n)).flatMap(([, a]) => a.devices?.[resource] ?? []);
  return [...new Set(fromInit)].filter((id) => !takenByApps.includes(id));
}

/** The machine's NUMA nodes as admission knows them: the topology manager's, the CPUs' and the devices'. */
function machineNumaNodes(ctx: ProviderContext): number[] {
  const nodes = new Set<number>([
    ...ctx.inventory.topology.numaNodes,
    ...(ctx.inventory.cpu?.topology.cpus.map((c) => c.numaNode) ?? []),
    ...Object.values(ctx.inventory.devices).flatMap((list) => list.flatMap((d) => d.numaNodes)),
  ]);
  return [...nodes].sort((a, b) => a - b);
}

function hintsFor(ctx: ProviderContext, requests: [string, number][], allocatedTo: (resource: string) => string[]): Record<string, TopologyHint[]> {
  const out: Record<string, TopologyHint[]> = {};
  for (const [resource, requested] of requests) {
    const all = ctx.inventory.devices[resource] ?? [];
    // Only devices with topology information give a preference.
    if (!all.some((d) => d.numaNodes.length > 0)) continue;
    const allocated = allocatedTo(resource);
    if (allocated.length > 0) {
      out[resource] = allocated.length === requested ? deviceTopologyHints(machineNumaNodes(ctx), all, allocated, [], requested) : [];
      continue;
    }
    const inUse = new Set([...heldIn(ctx.assignments, resource), ...heldIn([ctx.podAssignment], resource)]);
    const available = all.filter((d) => d.healthy && !inUse.has(d.id)).map((d) => d.id);
    const reuse = reusable(ctx, resource);
    if (new Set([...available, ...reuse]).size < requested) {
      out[resource] = [];
      continue;
    }
    out[resource] = deviceTopologyHints(machineNumaNodes(ctx), all, available, reuse, requested);
  }
  return out;
}

export const deviceProvider: ResourceProvider = {
  name: 'devices',
  hints(ctx, container) {
    if (container === null) {
      return hintsFor(ctx, podDeviceRequests(ctx, ctx.pod), (r) => heldIn([ctx.podAssignment], r));
    }
    return hintsFor(ctx, deviceRequests(ctx, container), (r) => ctx.podAssignment[container.name]?.devices?.[r] ?? []);
  },
  allocate(ctx, container, affinity) {
    const own = ctx.podAssignment[container.name]?.devices;
    const devices: Record<string, string[]> = { ...(own ?? {}) };
    for (const [resource, required] of deviceRequests(ctx, container)) {
      if (required === 0) continue;
      const others = { ...ctx.podAssignment };
      delete others[container.name];
      const result = devicesToAllocate({
        podUid: ctx.pod.metadata.uid ?? '',
        containerName: container.name,
        resource,
        required,
        held: own?.[resource],
        reusable: reusable(ctx, resource),
        devices: ctx.inventory.devices[resource],
        inUse: new Set([...heldIn(ctx.assignments, resource), ...heldIn([others], resource)]),
        affinity: affinity?.numaNodes ?? null,
      });
      if (!result.ok) return { ok: false, reason: UNEXPECTED_ADMISSION_ERROR, message: result.error };
      if (result.devices.length > 0) devices[resource] = result.devices;
    }
    return { ok: true, assignment: Object.keys(devices).length > 0 ? { devices } : {} };
  },
};
