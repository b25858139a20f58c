/**
 * The sandbox's resources as the Go kubelet sends them (kuberuntime_sandbox_linux.go
 * applySandboxResources): `resources` from the pod's requests and limits without its overhead
 * (PodRequests/PodLimits with ExcludeOverhead), and `overhead` from spec.overhead taken as
 * guaranteed (its cpu both request and limit). A pod without overhead sends an empty overhead, as Go
 * does. Runtimes that size a VM or a sandbox cgroup read these; runc-based ones may ignore them.
 */
import { podLimits, podRequests } from '../pod/resource-requests.js';
import type { Pod } from '../pod/types.js';
import { quantityMilliValue, quantityValue, resourceQuantity } from '../resources/quantity.js';
import type { CriLinuxContainerResources } from './cri-config.js';
import { calculateLinuxResources, type ResourceContext } from './resources.js';

type QuotaContext = Omit<ResourceContext, 'memoryCapacityBytes'>;

export function sandboxResources(pod: Pod, ctx: QuotaContext): CriLinuxContainerResources {
  const requests = podRequests(pod, { excludeOverhead: true });
  const limits = podLimits(pod, { excludeOverhead: true });
  return calculateLinuxResources({
    ...(requests.cpu !== undefined ? { cpuRequestMilli: requests.cpu } : {}),
    cpuLimitMilli: limits.cpu ?? 0,
    memoryLimitBytes: BigInt(limits.memory ?? 0),
  }, ctx);
}

export function sandboxOverhead(pod: Pod, ctx: QuotaContext): CriLinuxContainerResources {
  const overhead = pod.spec.overhead;
  if (!overhead) return {};
  const zero = { num: 0n, den: 1n };
  const cpuMilli = Number(quantityMilliValue(resourceQuantity(overhead, 'cpu') ?? zero));
  return calculateLinuxResources({ cpuRequestMilli: cpuMilli, cpuLimitMilli: cpuMilli, memoryLimitBytes: quantityValue(resourceQuantity(overhead, 'memory') ?? zero) }, ctx);
}
