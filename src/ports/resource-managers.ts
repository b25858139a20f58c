/**
 * What the resource managers read and write on the node: their checkpoint files (the state files
 * under --root-dir) and the CPU topology (/sys).
 */
import type { CpuTopology } from '../domain/resource-managers/cpu-inventory.js';
import type { NumaTopologySource } from './numa-topology.js';

export interface CheckpointFiles {
  /** The file's text, or null when it does not exist; refused unread when over maxBytes (its own bound). */
  read(path: string, maxBytes: number): Promise<string | null>;
  /** Replaces the file whole: a temporary file beside it, renamed over it (Go's checkpoint manager). */
  write(path: string, text: string): Promise<void>;
}

export interface CpuTopologySource {
  /** Every online logical CPU with its core, socket and NUMA node (what Go's cAdvisor reads from /sys). */
  read(): Promise<CpuTopology>;
}

export interface ResourceManagerHost {
  files: CheckpointFiles;
  cpuTopology: CpuTopologySource;
  /** The uids of the pods the kubelet runs now (Go's activePods), for the CPU reconcile. */
  activePodUids: () => string[];
  numaTopology: NumaTopologySource;
}
