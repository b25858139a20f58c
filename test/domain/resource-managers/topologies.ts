/** Made-up machines for the CPU manager's tests. */
import type { CpuInfo, CpuInventory, CpuTopology } from '../../../src/domain/resource-managers/cpu-inventory.js';
import { NO_CPU_POLICY_OPTIONS } from '../../../src/domain/resource-managers/cpu-inventory.js';

/**
 * `sockets` × `cores` × `threads`, numbered as Linux does on such a machine: the first thread of
 * every core first (0 … sockets×cores−1), then the second threads; one NUMA node per socket unless
 * `numaPerSocket` says more (the socket's cores split evenly between them).
 */
export function machine(sockets: number, cores: number, threads: number, numaPerSocket = 1): CpuTopology {
  const cpus: CpuInfo[] = [];
  const coresTotal = sockets * cores;
  for (let t = 0; t < threads; t++) {
    for (let s = 0; s < sockets; s++) {
      for (let c = 0; c < cores; c++) {
        const core = s * cores + c;
        const numaNode = s * numaPerSocket + Math.floor(c / (cores / numaPerSocket));
        cpus.push({ id: t * coresTotal + core, core, socket: s, numaNode });
      }
    }
  }
  return { cpus: cpus.sort((a, b) => a.id - b.id) };
}

export function inventory(topology: CpuTopology, reserved: number[] = [], options: Partial<CpuInventory['options']> = {}): CpuInventory {
  return { topology, reserved, options: { ...NO_CPU_POLICY_OPTIONS, ...options } };
}
