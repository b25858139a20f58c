/**
 * The plan of an in-place resize for one running container (Go's computePodResizeAction): compare
 * what the allocated pod asks for with what the container was last given (its actuated amounts) and,
 * per resource that changed, follow the container's resizePolicy: NotRequired (the default) updates
 * the running container, RestartContainer restarts it with the new amounts. One resource needing a
 * restart restarts the container for all of them.
 *
 * Updates are listed per resource, decreases before increases (a decrease goes to the front, an
 * increase to the back, as Go orders them), so a node near its limits has room freed before it is
 * taken. For memory the limit decides the direction, the request only when the limit is unchanged;
 * likewise for cpu.
 *
 * Static pods are not resized (Go's IsInPlacePodVerticalScalingAllowed): their spec changes reach the
 * kubelet as a new pod.
 */
import { isStaticPod } from '../pod/phase.js';
import type { Container, Pod } from '../pod/types.js';
import { desiredResourceAmounts, sameAmounts, zeroAmounts, type ResizableResource, type ResourceAmounts } from './actuated-resources.js';

export interface ContainerToUpdate {
  name: string;
  id: string;
  /** The allocated amounts. */
  desired: ResourceAmounts;
  /** The amounts the container runs with before this update. */
  current: ResourceAmounts;
}

export interface ContainersToUpdate {
  memory: ContainerToUpdate[];
  cpu: ContainerToUpdate[];
}

export type ContainerResizeDecision =
  | { kind: 'keep' }
  | { kind: 'restart'; message: string }
  | { kind: 'update'; updates: { resource: ResizableResource; grows: boolean }[] };

export function isResizeAllowed(pod: Pod): boolean {
  return !isStaticPod(pod);
}

function policyRestarts(container: Container, resource: ResizableResource): boolean {
  return container.resizePolicy?.some((p) => p.resourceName === resource && p.restartPolicy === 'RestartContainer') ?? false;
}

/** The direction of one resource's change: the limit's when it changed, else the request's; null when neither did. */
function change(limit: [number, number], request: [number, number]): { grows: boolean } | null {
  const [desiredLimit, currentLimit] = limit;
  const [desiredRequest, currentRequest] = request;
  if (desiredLimit !== currentLimit) return { grows: desiredLimit > currentLimit };
  if (desiredRequest !== currentRequest) return { grows: desiredRequest > currentRequest };
  return null;
}

/** What to do with a running container whose allocated amounts are `desired` and actuated ones `current`. */
export function containerResizeDecision(container: Container, desired: ResourceAmounts, current: ResourceAmounts): ContainerResizeDecision {
  if (sameAmounts(desired, current)) return { kind: 'keep' };
  const memory = change([desired.memoryLimitBytes, current.memoryLimitBytes], [desired.memoryRequestBytes, current.memoryRequestBytes]);
  const cpu = change([desired.cpuLimitMilli, current.cpuLimitMilli], [desired.cpuRequestMilli, current.cpuRequestMilli]);
  if ((memory && policyRestarts(container, 'memory')) || (cpu && policyRestarts(container, 'cpu'))) {
    return { kind: 'restart', message: `Container ${container.name} resize requires restart` };
  }
  const updates: { resource: ResizableResource; grows: boolean }[] = [];
  if (memory) updates.push({ resource: 'memory', ...memory });
  if (cpu) updates.push({ resource: 'cpu', ...cpu });
  return { kind: 'update', updates };
}

export function noContainersToUpdate(): ContainersToUpdate {
  return { memory: [], cpu: [] };
}

/**
 * Decides for one running container and, for an update, files it into `into` in Go's order.
 * `actuated` is undefined when the container has no record (see actuated-resources.ts).
 */
export function planContainerResize(pod: Pod, container: Container, id: string, actuated: ResourceAmounts | undefined, into: ContainersToUpdate): ContainerResizeDecision {
  const desired = desiredResourceAmounts(pod, container);
  const current = actuated ?? zeroAmounts;
  const decision = containerResizeDecision(container, desired, current);
  if (decision.kind !== 'update') return decision;
  for (const { resource, grows } of decision.updates) {
    const entry: ContainerToUpdate = { name: container.name, id, desired, current };
    if (grows) into[resource].push(entry);
    else into[resource].unshift(entry);
  }
  return decision;
}

export function hasContainersToUpdate(updates: ContainersToUpdate | undefined): boolean {
  return updates !== undefined && (updates.memory.length > 0 || updates.cpu.length > 0);
}
