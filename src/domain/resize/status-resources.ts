/**
 * A container's `resources` and `allocatedResources` in its status (Go's
 * convertContainerStatusResources): the allocated requests are `allocatedResources`; `resources`
 * starts from the allocated requests and limits and, for a running container, takes what the runtime
 * says the container runs with (CPU limit from its CFS quota, CPU request from its shares, memory
 * limit; the memory request from what the kubelet actuated, which no runtime reports), or else the previous status's value for the same running container. Values at or below
 * the kernel's floors (10m of quota, 2 shares) keep the allocated figure when both are that small,
 * so that a tiny request does not read as changed.
 */
import type { Container, ContainerStatus, ResourceList, ResourceRequirements } from '../pod/types.js';
import { binaryQuantity, cpuQuantity } from '../node-status/quantity-format.js';
import { quantityMilliValue, tryParseQuantity } from '../resources/quantity.js';
import type { RuntimeContainerResources } from '../runtime/pod-status.js';

const MIN_MILLI_CPU_LIMIT = 10;
const MIN_SHARES = 2;
const SHARES_PER_CPU = 1024;

/** What the runtime reports of a container's Linux resources, as Go reads it (toKubeContainerResources). */
export function runtimeContainerResources(linux: { cpu_period?: number | string | null; cpu_quota?: number | string | null; cpu_shares?: number | string | null; memory_limit_in_bytes?: number | string | null } | null | undefined): RuntimeContainerResources | undefined {
  if (!linux) return undefined;
  const period = Number(linux.cpu_period ?? 0);
  const quota = Number(linux.cpu_quota ?? 0);
  const shares = Number(linux.cpu_shares ?? 0);
  const memory = Number(linux.memory_limit_in_bytes ?? 0);
  const out: RuntimeContainerResources = {};
  if (period > 0 && quota !== -1) {
    const milli = Math.trunc((quota * 1000) / period);
    if (milli > 0) out.cpuLimitMilli = milli;
  }
  if (shares >= MIN_SHARES) {
    const milli = Math.ceil((shares * 1000) / SHARES_PER_CPU);
    if (milli > 0) out.cpuRequestMilli = milli;
  }
  if (memory > 0) out.memoryLimitBytes = memory;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A CPU figure in millicores, rounded up as Go's MilliValue; 0 when absent or not a quantity. */
function milliOf(text: string | undefined): number {
  const q = text === undefined ? undefined : tryParseQuantity(text);
  return q === undefined ? 0 : Number(quantityMilliValue(q));
}

export interface StatusResources {
  resources: ResourceRequirements;
  allocatedResources?: ResourceList;
}

/**
 * `allocated`: the container as allocated; `running`: the runtime shows it running, with `actual`
 * (undefined: the runtime says nothing); `old`: the previous status of the same running container;
 * `settled`: no resize is in progress, so what the runtime does not report is as allocated (Go
 * fills those from what it actuated, which then equals the allocation).
 */
export function containerStatusResources(allocated: Container, running: boolean, actual: RuntimeContainerResources | undefined, old: ContainerStatus | undefined, settled = false): StatusResources {
  const requests = allocated.resources?.requests;
  const limits = allocated.resources?.limits;
  const out: ResourceRequirements = {
    ...(limits ? { limits: { ...limits } } : {}),
    ...(requests ? { requests: { ...requests } } : {}),
  };
  const allocatedResources = requests ? { ...requests } : undefined;
  const result = (): StatusResources => ({ resources: out, ...(allocatedResources ? { allocatedResources } : {}) });
  if (!running) return result();
  // Settled, what the runtime does not report is what was allocated; else the last reported value stands.
  const keepOld = (list: ResourceList, oldList: ResourceList | undefined, name: string) => {
    const value = oldList?.[name];
    if (!settled && value !== undefined) list[name] = value;
  };
  if (out.limits) {
    if (actual?.cpuLimitMilli !== undefined) {
      if (actual.cpuLimitMilli > MIN_MILLI_CPU_LIMIT || milliOf(out.limits['cpu']) > MIN_MILLI_CPU_LIMIT) out.limits['cpu'] = cpuQuantity(actual.cpuLimitMilli);
    } else keepOld(out.limits, old?.resources?.limits, 'cpu');
    if (actual?.memoryLimitBytes !== undefined) out.limits['memory'] = binaryQuantity(actual.memoryLimitBytes);
    else keepOld(out.limits, old?.resources?.limits, 'memory');
  }
  if (out.requests) {
    if (actual?.cpuRequestMilli !== undefined) {
      if (actual.cpuRequestMilli > MIN_SHARES || milliOf(out.requests['cpu']) > MIN_SHARES) out.requests['cpu'] = cpuQuantity(actual.cpuRequestMilli);
    } else keepOld(out.requests, old?.resources?.requests, 'cpu');
    // Runtimes do not report a memory request: it comes from what was actuated, when known.
    if (actual?.memoryRequestBytes !== undefined) out.requests['memory'] = binaryQuantity(actual.memoryRequestBytes);
    else keepOld(out.requests, old?.resources?.requests, 'memory');
  }
  return result();
}
