/**
 * The order an in-place resize is applied in (Go's doPodResizeAction): memory first, then cpu, each
 * wrapped by the pod cgroup's own setting so the pod's bound always holds its containers. When a
 * resource grows, the pod cgroup is raised before its containers; when it shrinks, the containers go
 * down first and the pod cgroup after. For cpu the quota (limit) opens before the shares (request)
 * when growing and closes after them when shrinking, keeping request ≤ limit. The pod cgroup's
 * memory request is never written (no cgroup file holds it).
 *
 * A resource is planned when a container of it is updated or a container is restarted for a resize
 * (the pod cgroup must then follow the allocated pod). A setting the allocated pod leaves unset keeps
 * the pod cgroup's current one (Go cannot remove a limit in place either).
 *
 * Differs from Go: an unlimited setting (-1, "max") counts as larger than any limit, so adding a cpu
 * limit where there was none shrinks the containers before the pod; Go compares the raw -1.
 */
import type { ResourceConfig } from '../cgroups/resource-config.js';
import type { ResizableResource } from './actuated-resources.js';
import type { ContainerToUpdate, ContainersToUpdate } from './resize-actions.js';

export type ResizeStep =
  | { kind: 'podCgroup'; resource: ResizableResource; config: ResourceConfig }
  | { kind: 'container'; resource: ResizableResource; container: ContainerToUpdate };

export interface PodCgroupResize {
  /** What the pod cgroup is set to now. */
  current: ResourceConfig;
  /** What the allocated pod gives it (resourceConfigForPod). */
  desired: ResourceConfig;
}

const bound = (value: number | undefined) => (value === undefined || value < 0 ? Number.POSITIVE_INFINITY : value);

/** One resource's steps: the pod's growing settings, the containers, the pod's shrinking settings. */
function around(resource: ResizableResource, settings: { from: number; to: number; config: ResourceConfig }[], containers: readonly ContainerToUpdate[]): ResizeStep[] {
  const steps: ResizeStep[] = [];
  for (const s of settings) if (s.to > s.from) steps.push({ kind: 'podCgroup', resource, config: s.config });
  for (const container of containers) steps.push({ kind: 'container', resource, container });
  for (const s of [...settings].reverse()) if (s.to < s.from) steps.push({ kind: 'podCgroup', resource, config: s.config });
  return steps;
}

export function planPodResize(updates: ContainersToUpdate | undefined, updatePodResources: boolean, podCgroup: PodCgroupResize | undefined): ResizeStep[] {
  const steps: ResizeStep[] = [];
  const memory = updates?.memory ?? [];
  const cpu = updates?.cpu ?? [];
  const { current, desired } = podCgroup ?? { current: {}, desired: {} };
  const withPod = podCgroup !== undefined;

  if (memory.length > 0 || updatePodResources) {
    const limit = desired.memoryLimitBytes ?? current.memoryLimitBytes;
    const settings = withPod && limit !== undefined
      ? [{ from: bound(current.memoryLimitBytes), to: bound(limit), config: { memoryLimitBytes: limit } }]
      : [];
    steps.push(...around('memory', settings, memory));
  }
  if (cpu.length > 0 || updatePodResources) {
    const settings: { from: number; to: number; config: ResourceConfig }[] = [];
    const quota = desired.cpuQuota ?? current.cpuQuota;
    if (withPod && quota !== undefined) {
      const period = desired.cpuPeriod ?? current.cpuPeriod;
      settings.push({ from: bound(current.cpuQuota), to: bound(quota), config: { cpuQuota: quota, ...(period !== undefined ? { cpuPeriod: period } : {}) } });
    }
    if (withPod && desired.cpuShares !== undefined) {
      settings.push({ from: current.cpuShares ?? 0, to: desired.cpuShares, config: { cpuShares: desired.cpuShares } });
    }
    steps.push(...around('cpu', settings, cpu));
  }
  return steps;
}
