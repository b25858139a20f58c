/**
 * Go's CPU manager metrics for one admission (kubelet_cpu_manager_pinning_requests_total and
 * _errors_total): the static policy counts a request each time it is asked to allocate for a
 * container that wants exclusive CPUs (one it already holds CPUs for too), and an error each time
 * such an allocation fails.
 */
import type { Pod } from '../pod/types.js';
import type { AdmitResourcesResult } from './admit.js';
import { guaranteedCpus } from './cpu-static-policy.js';
import type { ResourceInventory } from './inventory.js';
import { RESOURCE_PROVIDERS } from './providers.js';

export interface CpuPinningCounts { requests: number; errors: number }

export const NO_CPU_PINNING: CpuPinningCounts = { requests: 0, errors: 0 };

const providerIndex = (name: string | undefined) => RESOURCE_PROVIDERS.findIndex((p) => p.name === name);

export function cpuPinningCounts(pod: Pod, inventory: ResourceInventory, result: AdmitResourcesResult): CpuPinningCounts {
  if (!inventory.cpu) return NO_CPU_PINNING;
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const wanting = (c: (typeof containers)[number]) => guaranteedCpus(pod, c) > 0;
  if (result.admit) return { requests: containers.filter(wanting).length, errors: 0 };
  const refusedAt = containers.findIndex((c) => c.name === result.container);
  const before = containers.slice(0, Math.max(refusedAt, 0)).filter(wanting).length;
  const refused = containers[refusedAt];
  // The refused container reached the CPU manager when the provider that refused it comes at or after it.
  const askedCpu = refused !== undefined && wanting(refused) && result.provider !== undefined && providerIndex('cpu') <= providerIndex(result.provider);
  return { requests: before + (askedCpu ? 1 : 0), errors: result.provider === 'cpu' ? 1 : 0 };
}

export const addCpuPinning = (a: CpuPinningCounts, b: CpuPinningCounts): CpuPinningCounts => ({ requests: a.requests + b.requests, errors: a.errors + b.errors });
