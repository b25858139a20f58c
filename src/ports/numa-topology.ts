import type { NumaNodeFacts } from '../domain/resource-managers/numa-node.js';

export type { NumaNodeFacts };

/** The machine's NUMA nodes with their memory, hugepages and distances (cAdvisor's MachineInfo.Topology). */
export interface NumaTopologySource {
  /** Sorted by id. KLT_ERR_HOST_IO when the host cannot say. */
  read(): Promise<NumaNodeFacts[]>;
}
