/**
 * Which CPUs an exclusive request takes (Go's cpumanager cpu_assignment.go): topology-aware best
 * fit. Packed (the default): whole NUMA nodes and sockets first (the larger of the two levels first),
 * then whole cores, then single threads, each time from the places with the fewest free CPUs, so
 * that free places stay whole. Distributed (distribute-cpus-across-numa): a request that needs
 * several NUMA nodes takes evenly from the combination of nodes that leaves the machine the most
 * balanced, in groups of `cpuGroupSize` (whole cores with full-pcpus-only).
 */
import { CpuDetails, cpuShape, cpusPerCore, cpusPerSocket, type CpuShape } from './cpu-details.js';
import type { CpuTopology } from './cpu-inventory.js';
import { cpusWithout, sortedCpus } from './cpu-set.js';

export const NOT_ENOUGH_CPUS = 'not enough cpus available to satisfy request';

export type TakeResult = { ok: true; cpus: number[] } | { ok: false; message: string };

class Accumulator {
  readonly all: CpuDetails;
  readonly shape: CpuShape;
  details: CpuDetails;
  result: number[] = [];
  needed: number;
  /** NUMA nodes hold sockets (or are them): whole NUMA nodes are taken before whole sockets. */
  private readonly numaFirst: boolean;

  constructor(topology: CpuTopology, available: readonly number[], numCpus: number) {
    this.all = CpuDetails.of(topology);
    this.shape = cpuShape(topology);
    this.details = this.all.keepOnly(available);
    this.needed = numCpus;
    this.numaFirst = this.shape.sockets >= this.shape.numaNodes;
  }

  take(cpus: readonly number[]): void {
    this.result = sortedCpus([...this.result, ...cpus]);
    this.details = this.details.keepOnly(cpusWithout(this.details.cpus(), this.result));
    this.needed -= cpus.length;
  }

  needs(n: number): boolean {
    return this.needed >= n;
  }

  isSatisfied(): boolean {
    return this.needed < 1;
  }

  isFailed(): boolean {
    return this.needed > this.details.size();
  }

  /** By free CPUs in each, fewest first; ties by id. */
  private sortByFree(ids: number[], cpusOf: (id: number) => number[]): number[] {
    return [...ids].sort((a, b) => cpusOf(a).length - cpusOf(b).length || a - b);
  }

  sortAvailableNumaNodes(): number[] {
    const d = this.details;
    if (this.numaFirst) return this.sortByFree(d.numaNodes(), (n) => d.cpusInNumaNodes(n));
    return this.sortAvailableSockets().flatMap((s) => this.sortByFree(d.numaNodesInSockets(s), (n) => d.cpusInNumaNodes(n)));
  }

  sortAvailableSockets(): number[] {
    const d = this.details;
    if (!this.numaFirst) return this.sortByFree(d.sockets(), (s) => d.cpusInSockets(s));
    return this.sortAvailableNumaNodes().flatMap((n) => this.sortByFree(d.socketsInNumaNodes(n), (s) => d.cpusInSockets(s)));
  }

  sortAvailableCores(): number[] {
    const d = this.details;
    if (this.numaFirst) return this.sortAvailableSockets().flatMap((s) => this.sortByFree(d.coresInSockets(s), (c) => d.cpusInCores(c)));
    return this.sortAvailableNumaNodes().flatMap((n) => this.sortByFree(d.coresInNumaNodes(n), (c) => d.cpusInCores(c)));
  }

  sortAvailableCpus(): number[] {
    return this.sortAvailableCores().flatMap((c) => this.details.cpusInCores(c));
  }

  private takeWhole(places: number[], isFree: (id: number) => boolean, cpusOf: (id: number) => number[]): void {
    for (const place of places.filter(isFree)) {
      const cpus = cpusOf(place);
      if (!this.needs(cpus.length)) continue;
      this.take(cpus);
    }
  }

  takeFullNumaNodes(): void {
    this.takeWhole(this.sortAvailableNumaNodes(), (n) => this.details.cpusInNumaNodes(n).length === this.all.cpusInNumaNodes(n).length, (n) => this.all.cpusInNumaNodes(n));
  }

  takeFullSockets(): void {
    this.takeWhole(this.sortAvailableSockets(), (s) => this.details.cpusInSockets(s).length === cpusPerSocket(this.shape), (s) => this.all.cpusInSockets(s));
  }

  takeFullCores(): void {
    this.takeWhole(this.sortAvailableCores(), (c) => this.details.cpusInCores(c).length === cpusPerCore(this.shape), (c) => this.all.cpusInCores(c));
  }

  takeRemainingCpus(): void {
    for (const cpu of this.sortAvailableCpus()) {
      if (!this.needs(1)) break;
      this.take([cpu]);
    }
  }

  takeFullFirstLevel(): void {
    if (this.numaFirst) this.takeFullNumaNodes();
    else this.takeFullSockets();
  }

  takeFullSecondLevel(): void {
    if (this.numaFirst) this.takeFullSockets();
    else this.takeFullNumaNodes();
  }
}

/** Go's takeByTopologyNUMAPacked. */
export function takeByTopologyPacked(topology: CpuTopology, available: readonly number[], numCpus: number): TakeResult {
  const acc = new Accumulator(topology, available, numCpus);
  if (acc.isSatisfied()) return { ok: true, cpus: acc.result };
  if (acc.isFailed()) return { ok: false, message: NOT_ENOUGH_CPUS };
  const steps = [() => acc.takeFullFirstLevel(), () => acc.takeFullSecondLevel(), () => acc.takeFullCores(), () => acc.takeRemainingCpus()];
  for (const step of steps) {
    step();
    if (acc.isSatisfied()) return { ok: true, cpus: acc.result };
  }
  return { ok: false, message: 'failed to allocate cpus' };
}

/** Every k-combination of `items`, in order; `visit` answers true to stop. */
function eachCombination(items: readonly number[], k: number, visit: (combo: number[]) => boolean): void {
  if (k < 1) return;
  const walk = (start: number, picked: number[]): boolean => {
    if (picked.length === k) return visit(picked);
    for (let i = start; i <= items.length - (k - picked.length); i++) {
      if (walk(i + 1, [...picked, items[i]!])) return true;
    }
    return false;
  };
  walk(0, []);
}

function standardDeviation(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
}

/** Go's rangeNUMANodesNeededToSatisfy: the fewest and the most NUMA nodes worth trying. */
function numaNodesNeeded(acc: Accumulator, cpuGroupSize: number): [number, number] {
  const numNuma = acc.all.numaNodes().length;
  const numNumaAvailable = acc.details.numaNodes().length;
  const groups = Math.floor((acc.all.size() - 1) / cpuGroupSize) + 1;
  const groupsPerNuma = Math.floor((groups - 1) / numNuma) + 1;
  const groupsNeeded = Math.floor((acc.needed - 1) / cpuGroupSize) + 1;
  return [Math.floor((groupsNeeded - 1) / groupsPerNuma) + 1, Math.min(groupsNeeded, numNumaAvailable)];
}

interface Choice { balance: number; combo: number[]; remainder: number[] | null }

/** For one combination of NUMA nodes: its best balance (and the nodes the remainder comes from), or null when it cannot serve. */
function scoreCombination(acc: Accumulator, numas: readonly number[], combo: number[], numCpus: number, cpuGroupSize: number): Choice | null {
  const free = (n: number) => acc.details.cpusInNumaNodes(n).length;
  if (acc.details.cpusInNumaNodes(...combo).length < numCpus) return null;
  const groups = combo.reduce((sum, n) => sum + Math.floor(free(n) / cpuGroupSize), 0);
  if (groups * cpuGroupSize < numCpus) return null;
  const distribution = Math.floor(numCpus / combo.length / cpuGroupSize) * cpuGroupSize;
  if (combo.some((n) => free(n) < distribution)) return null;
  const after = new Map(numas.map((n) => [n, free(n)]));
  for (const n of combo) after.set(n, after.get(n)! - distribution);
  const remainder = numCpus - distribution * combo.length;
  if (remainder === 0) return { balance: standardDeviation([...after.values()]), combo, remainder: null };
  const candidates = combo.filter((n) => after.get(n)! >= cpuGroupSize);
  let best: Choice | null = null;
  for (let k = candidates.length; k >= 1; k--) {
    eachCombination(candidates, k, (subset) => {
      const left = new Map(after);
      if (subset.reduce((sum, n) => sum + left.get(n)!, 0) < remainder) return false;
      let toGive = remainder;
      while (toGive > 0) {
        for (const n of subset) {
          if (toGive === 0) break;
          if (left.get(n)! < cpuGroupSize) continue;
          left.set(n, left.get(n)! - cpuGroupSize);
          toGive -= cpuGroupSize;
        }
      }
      const balance = standardDeviation([...left.values()]);
      if (best === null || balance < best.balance) best = { balance, combo, remainder: subset };
      return false;
    });
  }
  return best;
}

/** Go's takeByTopologyNUMADistributed. */
export function takeByTopologyDistributed(topology: CpuTopology, available: readonly number[], numCpus: number, cpuGroupSize: number): TakeResult {
  if (numCpus % cpuGroupSize !== 0) return takeByTopologyPacked(topology, available, numCpus);
  const acc = new Accumulator(topology, available, numCpus);
  if (acc.isSatisfied()) return { ok: true, cpus: acc.result };
  if (acc.isFailed()) return { ok: false, message: NOT_ENOUGH_CPUS };
  const numas = acc.sortAvailableNumaNodes();
  const [minNumas, maxNumas] = numaNodesNeeded(acc, cpuGroupSize);
  for (let k = minNumas; k <= maxNumas; k++) {
    let best: Choice | null = null;
    eachCombination(numas, k, (combo) => {
      if (best !== null && best.balance === 0) return true;
      const choice = scoreCombination(acc, numas, combo, numCpus, cpuGroupSize);
      if (choice !== null && (best === null || choice.balance < best.balance)) best = choice;
      return false;
    });
    const chosen = best as Choice | null;
    if (chosen === null) continue;
    const distribution = Math.floor(numCpus / chosen.combo.length / cpuGroupSize) * cpuGroupSize;
    for (const n of chosen.combo) {
      const taken = takeByTopologyPacked(topology, acc.details.cpusInNumaNodes(n), distribution);
      if (taken.ok) acc.take(taken.cpus);
    }
    let remainder = numCpus - distribution * chosen.combo.length;
    // A pass that takes nothing ends the loop (the accounting check below then says so).
    for (let progressed = true; remainder > 0 && progressed;) {
      progressed = false;
      for (const n of chosen.remainder ?? []) {
        if (remainder === 0) break;
        if (acc.details.cpusInNumaNodes(n).length < cpuGroupSize) continue;
        const taken = takeByTopologyPacked(topology, acc.details.cpusInNumaNodes(n), cpuGroupSize);
        if (taken.ok) acc.take(taken.cpus);
        remainder -= cpuGroupSize;
        progressed = true;
      }
    }
    if (acc.needed > 0) return { ok: false, message: `accounting error, not enough CPUs allocated, remaining: ${acc.needed}` };
    if (acc.needed < 0) return { ok: false, message: `accounting error, too many CPUs allocated, remaining: ${acc.needed}` };
    return { ok: true, cpus: acc.result };
  }
  return takeByTopologyPacked(topology, available, numCpus);
}
