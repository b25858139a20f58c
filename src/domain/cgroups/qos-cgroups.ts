/**
 * The settings of the cgroups above the pods (pkg/kubelet/cm qos_container_manager_linux.go and
 * node_container_manager_linux.go):
 *   - `kubepods` (the node-allocatable cgroup): cpu shares, memory and pids limits of the node's capacity,
 *     or, with `pods` in enforceNodeAllocatable, of capacity − kube-reserved − system-reserved (the
 *     hard eviction threshold is not taken off here, unlike the Node's allocatable);
 *   - `kubepods/besteffort`: the minimum cpu shares (2);
 *   - `kubepods/burstable`: cpu shares of the summed cpu requests of the Burstable pods that are
 *     active, recomputed as pods come and go;
 *   - --kube-reserved-cgroup / --system-reserved-cgroup, when enforced: their reservation (cpu shares,
 *     memory, pids), on a cgroup that must already exist.
 */
import { podQOS } from '../pod/qos.js';
import { podRequests } from '../pod/resource-requests.js';
import type { Pod } from '../pod/types.js';
import { reservedAmount, type AllocatableResult } from '../resources/allocatable.js';
import { MIN_SHARES, milliCpuToShares, type ResourceConfig } from './resource-config.js';

export interface QosCgroupConfigs {
  burstable: ResourceConfig;
  bestEffort: ResourceConfig;
}

/** Go's setCPUCgroupConfig over the active pods. */
export function qosCgroupConfigs(activePods: readonly Pod[]): QosCgroupConfigs {
  let burstableMilliCpu = 0;
  for (const pod of activePods) {
    if (podQOS(pod) === 'Burstable') burstableMilliCpu += podRequests(pod).cpu ?? 0;
  }
  return { burstable: { cpuShares: milliCpuToShares(burstableMilliCpu) }, bestEffort: { cpuShares: MIN_SHARES } };
}

/** The node's task limit (MachineInfo.maxPids) and the pids kube-reserved and system-reserved hold back. */
export interface NodePids { capacity: number | null; reserved: number }

/**
 * Go's node-allocatable cgroup config (getCgroupConfig of capacity, or of the absolute allocatable
 * when enforced): cpu shares, memory, and the pids limit when the kernel's task limit is known.
 */
export function nodeAllocatableCgroupConfig(resources: AllocatableResult, enforcePods: boolean, pids: NodePids = { capacity: null, reserved: 0 }): ResourceConfig {
  const clamp = (n: number) => Math.max(0, n);
  const cpuMillis = enforcePods ? clamp(resources.capacity.cpuMillis - resources.reserved.cpuMillis) : resources.capacity.cpuMillis;
  const memoryBytes = enforcePods ? clamp(resources.capacity.memoryBytes - resources.reserved.memoryBytes) : resources.capacity.memoryBytes;
  const config: ResourceConfig = { cpuShares: milliCpuToShares(cpuMillis), memoryLimitBytes: memoryBytes };
  if (pids.capacity !== null) config.pidsLimit = enforcePods ? clamp(pids.capacity - pids.reserved) : pids.capacity;
  return config;
}

/**
 * Go's enforceExistingCgroup settings for a reservation (kubeReserved or systemReserved): each
 * resource given becomes its setting; `compressibleOnly` (the `-compressible` enforcement keys)
 * keeps the cpu shares alone.
 */
export function reservedCgroupConfig(reserved: Record<string, string>, compressibleOnly = false): ResourceConfig {
  const config: ResourceConfig = {};
  if (reserved.cpu !== undefined) config.cpuShares = milliCpuToShares(reservedAmount('cpu', reserved.cpu));
  if (compressibleOnly) return config;
  if (reserved.memory !== undefined) config.memoryLimitBytes = reservedAmount('memory', reserved.memory);
  if (reserved.pid !== undefined) config.pidsLimit = reservedAmount('pid', reserved.pid);
  return config;
}
