/**
 * The static CPU manager's view of the machine (Go's cpumanager/topology CPUTopology and the static
 * policy's settings): every logical CPU with its core, socket and NUMA node, the CPUs reserved for
 * the system, and the policy options.
 */

/** One logical CPU. `core` is unique across sockets: the lowest CPU id among the core's threads (Go's getUniqueCoreID). */
export interface CpuInfo { id: number; core: number; socket: number; numaNode: number }

export interface CpuTopology {
  /** Sorted by id. */
  cpus: CpuInfo[];
}

export interface CpuPolicyOptions {
  /** full-pcpus-only: only whole physical cores go to a container. */
  fullPcpusOnly: boolean;
  /** distribute-cpus-across-numa: a request that needs several NUMA nodes takes evenly from each. */
  distributeCpusAcrossNuma: boolean;
}

export interface CpuInventory {
  topology: CpuTopology;
  /** Kept from exclusive assignment (reservedSystemCPUs, or taken by topology from the kube/system reserved cpu), sorted. */
  reserved: number[];
  options: CpuPolicyOptions;
}

export const NO_CPU_POLICY_OPTIONS: CpuPolicyOptions = { fullPcpusOnly: false, distributeCpusAcrossNuma: false };
