/**
 * The eviction signals kubelet-ts observes (Go: pkg/kubelet/eviction/api/types.go and helpers.go's
 * signalToNodeCondition / signalToResource), the node condition each one drives and the resource
 * it starves. Go also knows allocatableMemory.available (the pods cgroup, a memcg notifier) and the
 * containerfs.* signals of a split image filesystem; we observe neither (see thresholds.ts).
 */

export const SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
] as const;

export type Signal = (typeof SIGNALS)[number];

/** Signals Go accepts in evictionHard/evictionSoft that we accept and leave unobserved. */
export const UNOBSERVED_SIGNALS = ['allocatableMemory.available', 'containerfs.available', 'containerfs.inodesFree'] as const;

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** The conditions in the order the node status lists them (and admission names them). */
export const PRESSURE_CONDITIONS: readonly PressureCondition[] = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** The resource a signal's eviction reclaims; `inodes` and `pids` are the eviction manager's own names. */
export type StarvedResource = 'memory' | 'ephemeral-storage' | 'inodes' | 'pids';

export const SIGNAL_CONDITION: Readonly<Record<Signal, PressureCondition>> = {
  'memory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
};

export const SIGNAL_RESOURCE: Readonly<Record<Signal, StarvedResource>> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
  'nodefs.inodesFree': 'inodes',
  'imagefs.available': 'ephemeral-storage',
  'imagefs.inodesFree': 'inodes',
  'pid.available': 'pids',
};

export function isSignal(name: string): name is Signal {
  return (SIGNALS as readonly string[]).includes(name);
}

/** The NoSchedule taint the node lifecycle controller puts on a node with this condition (Go: v1.TaintNodeMemoryPressure …). */
export const PRESSURE_TAINT_KEYS: Readonly<Record<PressureCondition, string>> = {
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  PIDPressure: 'node.kubernetes.io/pid-pressure',
};
