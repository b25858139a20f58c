/**
 * A container's Linux resources as the Go kubelet computes them (kuberuntime_container_linux.go
 * calculateLinuxResources, cm.MilliCPUToShares, milliCPUToQuota, qos.GetContainerOOMScoreAdjust).
 */
import type { Container, Pod } from '../pod/types.js';
import { podQOS } from '../pod/qos.js';
import { isPodLevelRequestsSet, isPodLevelResourcesSet, podRequests } from '../pod/resource-requests.js';
import { quantityMilliValue, quantityValue, resourceQuantity, type Quantity } from '../resources/quantity.js';
import type { CriLinuxContainerResources } from './cri-config.js';

export const minShares = 2;
export const maxShares = 262144;
export const sharesPerCpu = 1024;
/** The CFS period the kubelet uses unless --cpu-cfs-quota-period says otherwise (100 ms, in µs). */
export const defaultCfsPeriodMicros = 100_000;
/** The smallest quota the kernel accepts (1 ms, in µs). */
export const minQuotaMicros = 1000;

export const guaranteedOomScoreAdj = -997;
export const bestEffortOomScoreAdj = 1000;

/** cpu.shares for a cpu request in millicores: 0 → 2 (the kernel's minimum), clamped to [2, 262144]. */
export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu === 0) return minShares;
  const shares = Math.floor((milliCpu * sharesPerCpu) / 1000);
  return Math.min(maxShares, Math.max(minShares, shares));
}

/** CFS quota (µs per period) for a cpu limit in millicores; 0 means no limit. */
export function milliCpuToQuota(milliCpu: number, periodMicros: number): number {
  if (milliCpu === 0) return 0;
  return Math.max(minQuotaMicros, Math.floor((milliCpu * periodMicros) / 1000));
}

const zero: Quantity = { num: 0n, den: 1n };

const memoryRequestOf = (c: Container): number => Number(quantityValue(resourceQuantity(c.resources?.requests, 'memory') ?? zero));

/**
 * With pod-level memory requests (PodLevelResources): what the pod requests beyond its containers,
 * shared equally among all of them, init containers included (Go's remainingPodMemReqPerContainer).
 */
function remainingPodMemoryPerContainer(pod: Pod): number {
  const podMemory = Number(quantityValue(resourceQuantity(pod.spec.resources?.requests, 'memory') ?? zero));
  if (podMemory === 0) return 0;
  const containers = pod.spec.containers.length + (pod.spec.initContainers ?? []).length;
  const remaining = podMemory - (podRequests(pod, { excludeOverhead: true, excludePodLevel: true }).memory ?? 0);
  return Math.trunc(remaining / containers);
}

/**
 * oom_score_adj by QoS class (Go's GetContainerOOMScoreAdjust). Node-critical pods and Guaranteed
 * pods get -997, BestEffort 1000, and Burstable 1000 − 1000·request/capacity kept within [3, 999],
 * so a Burstable container always outlives BestEffort and dies before Guaranteed. The request
 * gains the pod's unshared pod-level memory request per container; a sidecar's score is never above
 * that of the regular container that requests least, so it is not killed before them.
 */
export function containerOomScoreAdj(pod: Pod, container: Container, memoryCapacityBytes: number): number {
  if (pod.spec.priorityClassName === 'system-node-critical') return guaranteedOomScoreAdj;
  const qos = podQOS(pod);
  if (qos === 'Guaranteed') return guaranteedOomScoreAdj;
  if (qos === 'BestEffort') return bestEffortOomScoreAdj;
  const share = isPodLevelRequestsSet(pod) ? remainingPodMemoryPerContainer(pod) : 0;
  // Go's integer arithmetic: truncating division.
  const scoreFor = (request: number) => (memoryCapacityBytes > 0 ? 1000 - Math.trunc((1000 * (request + share)) / memoryCapacityBytes) : 1000);
  let adj = scoreFor(memoryRequestOf(container));
  const isSidecar = container.restartPolicy === 'Always' && (pod.spec.initContainers ?? []).some((c) => c.name === container.name);
  if (isSidecar && pod.spec.containers.length > 0) adj = Math.min(adj, scoreFor(Math.min(...pod.spec.containers.map(memoryRequestOf))));
  if (adj < 1000 + guaranteedOomScoreAdj) return 1000 + guaranteedOomScoreAdj;
  if (adj === bestEffortOomScoreAdj) return adj - 1;
  return adj;
}

export interface ResourceContext {
  memoryCapacityBytes: number;
  /** --cpu-cfs-quota (default true): without it no quota/period is set. */
  cpuCfsQuota?: boolean;
  cpuCfsQuotaPeriodMicros?: number;
}

/** What calculateLinuxResources reads: cpu in millicores (the request absent when not asked), memory in bytes. */
export interface LinuxResourceAmounts {
  cpuRequestMilli?: number;
  cpuLimitMilli: number;
  memoryLimitBytes: bigint;
}

/**
 * cpu shares from the request (a limit without a request stands for it: the API server defaults it,
 * repeated here), the memory limit when there is one, and the CFS quota and period unless
 * --cpu-cfs-quota is off (calculateLinuxResources).
 */
export function calculateLinuxResources(amounts: LinuxResourceAmounts, ctx: Omit<ResourceContext, 'memoryCapacityBytes'>): CriLinuxContainerResources {
  const { cpuRequestMilli, cpuLimitMilli, memoryLimitBytes } = amounts;
  const sharesFrom = cpuRequestMilli === undefined && cpuLimitMilli !== 0 ? cpuLimitMilli : cpuRequestMilli ?? 0;
  const resources: CriLinuxContainerResources = { cpu_shares: String(milliCpuToShares(sharesFrom)) };
  if (memoryLimitBytes !== 0n) resources.memory_limit_in_bytes = String(memoryLimitBytes);
  if (ctx.cpuCfsQuota ?? true) {
    const period = ctx.cpuCfsQuotaPeriodMicros ?? defaultCfsPeriodMicros;
    resources.cpu_period = String(period);
    resources.cpu_quota = String(milliCpuToQuota(cpuLimitMilli, period));
  }
  return resources;
}

/**
 * A container's cpu or memory limit (Go's getCPULimit, getMemoryLimit): its own, or, in a pod with
 * pod-level resources, the pod's where it sets none, so the container is held to the pod's bound.
 */
function containerLimit(pod: Pod, container: Container, name: 'cpu' | 'memory'): Quantity {
  const own = resourceQuantity(container.resources?.limits, name);
  if ((own === undefined || own.num === 0n) && isPodLevelResourcesSet(pod)) return resourceQuantity(pod.spec.resources?.limits, name) ?? zero;
  return own ?? zero;
}

export function linuxContainerResources(pod: Pod, container: Container, ctx: ResourceContext): CriLinuxContainerResources {
  const cpuRequest = resourceQuantity(container.resources?.requests, 'cpu');
  const resources = calculateLinuxResources({
    ...(cpuRequest !== undefined ? { cpuRequestMilli: Number(quantityMilliValue(cpuRequest)) } : {}),
    cpuLimitMilli: Number(quantityMilliValue(containerLimit(pod, container, 'cpu'))),
    memoryLimitBytes: quantityValue(containerLimit(pod, container, 'memory')),
  }, ctx);
  resources.oom_score_adj = String(containerOomScoreAdj(pod, container, ctx.memoryCapacityBytes));
  return resources;
}
