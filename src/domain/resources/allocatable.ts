/**
 * Node capacity and allocatable, as the Go kubelet's container manager computes them
 * (pkg/kubelet/cm/node_container_manager_linux.go, GetNodeAllocatableAbsolute and
 * getNodeAllocatableInternalAbsolute): allocatable = capacity − kube-reserved − system-reserved −
 * hard eviction thresholds (memory.available for memory, nodefs.available for ephemeral-storage),
 * clamped at zero. Units: cpu in millicores, memory and storage in bytes, pods as a count.
 */
import { parseThresholdValue, thresholdQuantity } from '../eviction/thresholds.js';
import { quantityNumber } from './quantity.js';

export interface NodeResources {
  cpuMillis: number;
  memoryBytes: number;
  ephemeralStorageBytes: number;
  pods: number;
}

export interface AllocatableInput {
  numCores: number;
  memoryCapacityBytes: number;
  rootFsCapacityBytes: number;
  maxPods: number;
  kubeReserved: Record<string, string>;
  systemReserved: Record<string, string>;
  evictionHard: Record<string, string>;
}

export interface AllocatableResult {
  capacity: NodeResources;
  reserved: NodeResources;
  evictionHard: { memoryBytes: number; ephemeralStorageBytes: number };
  allocatable: NodeResources;
}

/** A quantity in the resource's unit: cpu to millicores (`100m` → 100, `1` → 1000), others as is. */
export function reservedAmount(resource: 'cpu' | 'memory' | 'ephemeral-storage' | 'pid', text: string | undefined): number {
  if (text === undefined) return 0;
  const v = quantityNumber(text) ?? 0;
  return resource === 'cpu' ? Math.round(v * 1000) : Math.ceil(v);
}

/**
 * A hard eviction threshold as an absolute amount, as the eviction manager reads it (Go: the
 * container manager's thresholds come from eviction.ParseThresholdConfig, GetThresholdQuantity):
 * `0%`, `100%` and zero are no threshold.
 */
function threshold(text: string | undefined, capacity: number): number {
  const value = text === undefined ? null : parseThresholdValue(text);
  return value === null ? 0 : Math.ceil(thresholdQuantity(value, capacity));
}

export function computeAllocatable(input: AllocatableInput): AllocatableResult {
  const capacity: NodeResources = {
    cpuMillis: input.numCores * 1000,
    memoryBytes: input.memoryCapacityBytes,
    ephemeralStorageBytes: input.rootFsCapacityBytes,
    pods: input.maxPods,
  };
  const reserved: NodeResources = {
    cpuMillis: reservedAmount('cpu', input.kubeReserved.cpu) + reservedAmount('cpu', input.systemReserved.cpu),
    memoryBytes: reservedAmount('memory', input.kubeReserved.memory) + reservedAmount('memory', input.systemReserved.memory),
    ephemeralStorageBytes:
      reservedAmount('ephemeral-storage', input.kubeReserved['ephemeral-storage']) +
      reservedAmount('ephemeral-storage', input.systemReserved['ephemeral-storage']),
    pods: 0,
  };
  const evictionHard = {
    memoryBytes: threshold(input.evictionHard['memory.available'], capacity.memoryBytes),
    ephemeralStorageBytes: threshold(input.evictionHard['nodefs.available'], capacity.ephemeralStorageBytes),
  };
  const clamp = (n: number) => Math.max(0, n);
  return {
    capacity,
    reserved,
    evictionHard,
    allocatable: {
      cpuMillis: clamp(capacity.cpuMillis - reserved.cpuMillis),
      memoryBytes: clamp(capacity.memoryBytes - reserved.memoryBytes - evictionHard.memoryBytes),
      ephemeralStorageBytes: clamp(capacity.ephemeralStorageBytes - reserved.ephemeralStorageBytes - evictionHard.ephemeralStorageBytes),
      pods: capacity.pods,
    },
  };
}
