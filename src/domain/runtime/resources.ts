/**
 * A container's Linux resources as the Go kubelet computes them (kuberuntime_container_linux.go
 * calculateLinuxResources, cm.MilliCPUToShares, milliCPUToQuota, qos.GetContainerOOMScoreAdjust).
 */
import type { Container, Pod } from '../pod/types.js';
import { podQOS } from '../pod/qos.js';
import { quantityMilliValue, quantityValue, resourceQuantity } from '../resources/quantity.js';
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

/**
 * oom_score_adj by QoS class. Node-critical pods and Guaranteed pods get -997, BestEffort 1000, and
 * Burstable 1000 − 1000·request/capacity kept within [3, 999], so a Burstable container always
 * outlives BestEffort and dies before Guaranteed.
 */
export function containerOomScoreAdj(pod: Pod, container: Container, memoryCapacityBytes: number): number {
  if (pod.spec.priorityClassName === 'system-node-critical') return guaranteedOomScoreAdj;
  const qos = podQOS(pod);
  if (qos === 'Guaranteed') return guaranteedOomScoreAdj;
  if (qos === 'BestEffort') return bestEffortOomScoreAdj;
  const request = Number(quantityValue(resourceQuantity(container.resources?.requests, 'memory') ?? { num: 0n, den: 1n }));
  // Go's integer arithmetic: truncating division.
  const adj = memoryCapacityBytes > 0 ? 1000 - Math.trunc((1000 * request) / memoryCapacityBytes) : 1000;
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

const zero = { num: 0n, den: 1n };

export function linuxContainerResources(pod: Pod, container: Container, ctx: ResourceContext): CriLinuxContainerResources {
  const cpuRequest = resourceQuantity(container.resources?.requests, 'cpu');
  const resources = calculateLinuxResources({
    ...(cpuRequest !== undefined ? { cpuRequestMilli: Number(quantityMilliValue(cpuRequest)) } : {}),
    cpuLimitMilli: Number(quantityMilliValue(resourceQuantity(container.resources?.limits, 'cpu') ?? zero)),
    memoryLimitBytes: quantityValue(resourceQuantity(container.resources?.limits, 'memory') ?? zero),
  }, ctx);
  resources.oom_score_adj = String(containerOomScoreAdj(pod, container, ctx.memoryCapacityBytes));
  return resources;
}
