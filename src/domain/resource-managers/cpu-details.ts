/**
 * Questions asked of a CPU topology, restricted to some of its CPUs (Go's topology.CPUDetails with
 * KeepOnly): which CPUs lie in given cores, sockets or NUMA nodes, and the cores, sockets and NUMA
 * nodes they make up. Every answer is sorted by id.
 */
import type { CpuInfo, CpuTopology } from './cpu-inventory.js';
import { sortedCpus } from './cpu-set.js';

export class CpuDetails {
  private readonly byId: Map<number, CpuInfo>;

  constructor(readonly cpusInfo: readonly CpuInfo[]) {
    this.byId = new Map(cpusInfo.map((c) => [c.id, c]));
  }

  static of(topology: CpuTopology): CpuDetails {
    return new CpuDetails(topology.cpus);
  }

  info(id: number): CpuInfo | undefined {
    return this.byId.get(id);
  }

  /** Only these CPUs. */
  keepOnly(ids: Iterable<number>): CpuDetails {
    const keep = new Set(ids);
    return new CpuDetails(this.cpusInfo.filter((c) => keep.has(c.id)));
  }

  cpus(): number[] {
    return sortedCpus(this.cpusInfo.map((c) => c.id));
  }

  size(): number {
    return this.cpusInfo.length;
  }

  cores(): number[] {
    return sortedCpus(this.cpusInfo.map((c) => c.core));
  }

  sockets(): number[] {
    return sortedCpus(this.cpusInfo.map((c) => c.socket));
  }

  numaNodes(): number[] {
    return sortedCpus(this.cpusInfo.map((c) => c.numaNode));
  }

  cpusInCores(...cores: number[]): number[] {
    return this.where((c) => cores.includes(c.core));
  }

  cpusInSockets(...sockets: number[]): number[] {
    return this.where((c) => sockets.includes(c.socket));
  }

  cpusInNumaNodes(...nodes: number[]): number[] {
    return this.where((c) => nodes.includes(c.numaNode));
  }

  coresInSockets(...sockets: number[]): number[] {
    return sortedCpus(this.cpusInfo.filter((c) => sockets.includes(c.socket)).map((c) => c.core));
  }

  coresInNumaNodes(...nodes: number[]): number[] {
    return sortedCpus(this.cpusInfo.filter((c) => nodes.includes(c.numaNode)).map((c) => c.core));
  }

  socketsInNumaNodes(...nodes: number[]): number[] {
    return sortedCpus(this.cpusInfo.filter((c) => nodes.includes(c.numaNode)).map((c) => c.socket));
  }

  numaNodesInSockets(...sockets: number[]): number[] {
    return sortedCpus(this.cpusInfo.filter((c) => sockets.includes(c.socket)).map((c) => c.numaNode));
  }

  private where(keep: (c: CpuInfo) => boolean): number[] {
    return sortedCpus(this.cpusInfo.filter(keep).map((c) => c.id));
  }
}

/** The whole machine's shape (Go's CPUTopology: NumCPUs, NumCores, NumSockets, NumNUMANodes). */
export interface CpuShape { cpus: number; cores: number; sockets: number; numaNodes: number }

export function cpuShape(topology: CpuTopology): CpuShape {
  const all = CpuDetails.of(topology);
  return { cpus: all.size(), cores: all.cores().length, sockets: all.sockets().length, numaNodes: all.numaNodes().length };
}

/** CPUsPerCore: threads per core (0 for an empty topology). */
export const cpusPerCore = (shape: CpuShape): number => (shape.cores === 0 ? 0 : Math.floor(shape.cpus / shape.cores));

export const cpusPerSocket = (shape: CpuShape): number => (shape.sockets === 0 ? 0 : Math.floor(shape.cpus / shape.sockets));
