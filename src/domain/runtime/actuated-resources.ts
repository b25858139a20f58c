/**
 * The cpu and memory a container runs with, as the four amounts an in-place resize compares
 * (Go's containerResources in kuberuntime_manager.go): what the allocated pod asks for, and what the
 * kubelet last gave the running container (the actuated resources, actuated-state.ts keeps them).
 *
 * A container the kubelet holds no record for (started before actuation was recorded, or by another
 * kubelet) is taken at what the runtime reports for it when it reports anything (ContainerStatus
 * resources.linux: containerd does): where the runtime's cpu shares / quota or memory limit are those
 * the allocated amounts produce, the container is in place for that resource; where they differ the
 * amounts read back from them stand in, so the resize goes the right way. The memory request leaves no
 * trace in the runtime and is taken as allocated. Without a report it is Go's zero value: one
 * idempotent update (or a restart under a RestartContainer policy), which is what Go does for any
 * container without a record.
 */
import { resizableContainers } from '../resize/allocation.js';
import { isPodLevelResourcesSet } from '../pod/resource-requests.js';
import type { Container, Pod } from '../pod/types.js';
import { quantityMilliValue, quantityValue, resourceQuantity } from '../resources/quantity.js';
import { calculateLinuxResources, defaultCfsPeriodMicros, type ResourceContext } from './resources.js';

export interface ResourceAmounts {
  cpuRequestMilli: number;
  cpuLimitMilli: number;
  memoryRequestBytes: number;
  memoryLimitBytes: number;
}

export type ResizableResource = 'cpu' | 'memory';

export const zeroAmounts: ResourceAmounts = { cpuRequestMilli: 0, cpuLimitMilli: 0, memoryRequestBytes: 0, memoryLimitBytes: 0 };

const milli = (list: Record<string, string> | undefined, name: string) => {
  const q = resourceQuantity(list, name);
  return q === undefined ? 0 : Number(quantityMilliValue(q));
};
const bytes = (list: Record<string, string> | undefined, name: string) => {
  const q = resourceQuantity(list, name);
  return q === undefined ? 0 : Number(quantityValue(q));
};

/**
 * The container's amounts in `pod` (Go's containerResourcesFromRequirements with pod-level
 * resources): its own requests and limits, a limit it leaves unset taken from the pod's, as
 * linuxContainerResources does, so the cgroup values and these amounts agree.
 */
export function desiredResourceAmounts(pod: Pod, container: Container): ResourceAmounts {
  const own = container.resources;
  const podLimits = isPodLevelResourcesSet(pod) ? pod.spec.resources?.limits : undefined;
  const cpuLimit = milli(own?.limits, 'cpu') || milli(podLimits, 'cpu');
  const memoryLimit = bytes(own?.limits, 'memory') || bytes(podLimits, 'memory');
  return { cpuRequestMilli: milli(own?.requests, 'cpu'), cpuLimitMilli: cpuLimit, memoryRequestBytes: bytes(own?.requests, 'memory'), memoryLimitBytes: memoryLimit };
}

export function sameAmounts(a: ResourceAmounts, b: ResourceAmounts): boolean {
  return a.cpuRequestMilli === b.cpuRequestMilli && a.cpuLimitMilli === b.cpuLimitMilli &&
    a.memoryRequestBytes === b.memoryRequestBytes && a.memoryLimitBytes === b.memoryLimitBytes;
}

/** The container's amounts with one resource's taken from `from` (what an update of that resource leaves actuated). */
export function withResource(amounts: ResourceAmounts, from: ResourceAmounts, resource: ResizableResource): ResourceAmounts {
  return resource === 'cpu'
    ? { ...amounts, cpuRequestMilli: from.cpuRequestMilli, cpuLimitMilli: from.cpuLimitMilli }
    : { ...amounts, memoryRequestBytes: from.memoryRequestBytes, memoryLimitBytes: from.memoryLimitBytes };
}

/** What a runtime reports of a running container's cgroup settings (CRI LinuxContainerResources, int64s as decimal strings). */
export interface ReportedLinuxResources {
  cpu_shares?: string;
  cpu_quota?: string;
  cpu_period?: string;
  memory_limit_in_bytes?: string;
}

const int = (text: string | undefined) => {
  const n = Number(text ?? 0);
  return Number.isFinite(n) ? n : 0;
};

/** See the file comment: a container without a record, at what the runtime reports, against what it is allocated. */
export function amountsFromRuntime(reported: ReportedLinuxResources, desired: ResourceAmounts, ctx: Omit<ResourceContext, 'memoryCapacityBytes'>): ResourceAmounts {
  // No request is how a limit alone stands for the request (the shares come from the limit then).
  const request = desired.cpuRequestMilli !== 0 ? { cpuRequestMilli: desired.cpuRequestMilli } : {};
  const expected = calculateLinuxResources({ ...request, cpuLimitMilli: desired.cpuLimitMilli, memoryLimitBytes: BigInt(desired.memoryLimitBytes) }, ctx);
  const shares = int(reported.cpu_shares);
  const quota = int(reported.cpu_quota);
  const quotaEnforced = ctx.cpuCfsQuota ?? true;
  const cpuInPlace = shares === int(expected.cpu_shares) && (!quotaEnforced || Math.max(quota, 0) === int(expected.cpu_quota));
  const period = int(reported.cpu_period) || ctx.cpuCfsQuotaPeriodMicros || defaultCfsPeriodMicros;
  const cpu = cpuInPlace
    ? { cpuRequestMilli: desired.cpuRequestMilli, cpuLimitMilli: desired.cpuLimitMilli }
    : { cpuRequestMilli: Math.round((shares * 1000) / 1024), cpuLimitMilli: quotaEnforced && quota > 0 ? Math.round((quota * 1000) / period) : 0 };
  const memoryLimit = Math.max(int(reported.memory_limit_in_bytes), 0);
  return { ...cpu, memoryRequestBytes: desired.memoryRequestBytes, memoryLimitBytes: memoryLimit };
}

/**
 * The actuated amounts of each running resizable container of `pod` (regular containers and
 * sidecars), by name: its record, else what its runtime reports (see the file comment); a container
 * with neither is left out (the zero value then).
 */
export function actuatedForPod(
  pod: Pod,
  running: readonly { name: string; resources?: ReportedLinuxResources }[],
  records: Readonly<Record<string, ResourceAmounts>> | undefined,
  ctx: Omit<ResourceContext, 'memoryCapacityBytes'>,
): Record<string, ResourceAmounts> {
  const out: Record<string, ResourceAmounts> = {};
  for (const container of resizableContainers(pod)) {
    const record = records?.[container.name];
    if (record) {
      out[container.name] = record;
      continue;
    }
    const reported = running.find((r) => r.name === container.name)?.resources;
    if (reported) out[container.name] = amountsFromRuntime(reported, desiredResourceAmounts(pod, container), ctx);
  }
  return out;
}
