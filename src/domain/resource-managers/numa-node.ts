/**
 * A NUMA node as the host describes it in sysfs (what cAdvisor's topology gives Go's kubelet):
 * `nodeN/meminfo` for its memory, `nodeN/hugepages/hugepages-<size>kB/nr_hugepages` for its
 * hugepages, `nodeN/distance` for its distance to every node. Parsing only; the adapter reads.
 */
import type { NumaNodeMemory } from './memory/machine-state.js';

export interface NumaNodeFacts extends NumaNodeMemory {
  /** Distance to node i at index i (10 to itself). */
  distances: number[];
}

/** `node12` → 12; anything else → null. */
export function numaNodeId(dirName: string): number | null {
  const m = /^node(\d+)$/.exec(dirName);
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** `Node 0 MemTotal:  9135904 kB` → bytes; null when absent. */
export function parseNodeMemTotal(meminfo: string): number | null {
  const m = /^Node \d+ MemTotal:\s*(\d+)\s*kB\s*$/m.exec(meminfo);
  return m?.[1] === undefined ? null : Number(m[1]) * 1024;
}

/** `hugepages-2048kB` → 2048; anything else → null. */
export function hugepageSizeKiB(dirName: string): number | null {
  const m = /^hugepages-(\d+)kB$/.exec(dirName);
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** `10 21` → [10, 21]. */
export function parseDistances(text: string): number[] {
  return text.trim() === '' ? [] : text.trim().split(/\s+/).map(Number);
}
