/**
 * The merge of the hint providers' hints into one affinity, as Go's topologymanager policy.go does it
 * (filterProvidersHints, mergePermutation, HintMerger): every permutation of one hint per resource is
 * ANDed into a candidate; preferred candidates beat non-preferred ones, and among equals the fitter
 * mask wins (the narrowest, or with prefer-closest-numa-nodes the one of shortest average distance).
 * Among non-preferred candidates it aims at the widest of the providers' narrowest hints.
 */
import type { TopologyAffinity, ProviderHints, TopologyPolicyName } from './hint.js';
import { andMasks, isMaskLessThan, isMaskNarrowerThan, sameMask } from './numa-mask.js';

export interface MergeMachine {
  numaNodes: number[];
  distances: Record<number, number[]>;
  preferClosestNuma: boolean;
}

/** Go's filterProvidersHints: one list of hints per resource, a "no preference" hint for silent providers. */
export function filterProvidersHints(providersHints: readonly ProviderHints[]): TopologyAffinity[][] {
  const all: TopologyAffinity[][] = [];
  for (const hints of providersHints) {
    const resources = hints === null ? [] : Object.keys(hints).sort();
    if (resources.length === 0) {
      all.push([{ numaNodes: null, preferred: true }]);
      continue;
    }
    for (const resource of resources) {
      const list = hints?.[resource] ?? null;
      if (list === null) all.push([{ numaNodes: null, preferred: true }]);
      else if (list.length === 0) all.push([{ numaNodes: null, preferred: false }]);
      else all.push(list.map((h) => ({ numaNodes: h.numaNodes, preferred: h.preferred })));
    }
  }
  return all;
}

/** Go's mergePermutation: the AND of the masks; preferred only when all are preferred and all set masks are equal. */
export function mergePermutation(defaultMask: number[], permutation: readonly TopologyAffinity[]): { numaNodes: number[]; preferred: boolean } {
  let preferred = true;
  const masks: number[][] = [];
  for (const hint of permutation) {
    if (hint.numaNodes !== null) {
      masks.push(hint.numaNodes);
      if (!sameMask(hint.numaNodes, masks[0] ?? [])) preferred = false;
    }
    if (!hint.preferred) preferred = false;
  }
  return { numaNodes: andMasks(defaultMask, ...masks), preferred };
}

function averageDistance(distances: Record<number, number[]>, mask: readonly number[]): number {
  if (mask.length === 0) return 0;
  let sum = 0;
  for (const a of mask) for (const b of mask) sum += distances[a]?.[b] ?? 0;
  return sum / (mask.length * mask.length);
}

/** Go's NUMAInfo.Closest: at equal widths, the mask of shortest average distance (ties: the lower mask). */
function closest(distances: Record<number, number[]>, a: number[], b: number[]): number[] {
  if (a.length !== b.length) return isMaskNarrowerThan(a, b) ? a : b;
  const da = averageDistance(distances, a);
  const db = averageDistance(distances, b);
  if (da === db) return isMaskLessThan(a, b) ? a : b;
  return da < db ? a : b;
}

/** Go's maxOfMinAffinityCounts: the widest among each resource's narrowest hint. */
function bestNonPreferredCount(filtered: readonly TopologyAffinity[][]): number {
  let best = 0;
  for (const hints of filtered) {
    let narrowest: number[] | null = null;
    for (const h of hints) {
      if (h.numaNodes === null) continue;
      if (narrowest === null || isMaskNarrowerThan(h.numaNodes, narrowest)) narrowest = h.numaNodes;
    }
    if (narrowest !== null && narrowest.length > best) best = narrowest.length;
  }
  return best;
}

interface Candidate { numaNodes: number[]; preferred: boolean }

/**
 * Go's HintMerger.Merge. `policy` matters only for prefer-closest-numa-nodes, which single-numa-node
 * ignores (one node has no distance to compare).
 */
export function mergeFilteredHints(machine: MergeMachine, policy: TopologyPolicyName, filtered: readonly TopologyAffinity[][]): Candidate {
  const defaultMask = machine.numaNodes;
  const useClosest = policy !== 'single-numa-node' && machine.preferClosestNuma;
  const fitter = (current: Candidate, candidate: Candidate): Candidate => {
    if (sameMask(candidate.numaNodes, current.numaNodes)) return current;
    const best = useClosest
      ? closest(machine.distances, current.numaNodes, candidate.numaNodes)
      : isMaskNarrowerThan(current.numaNodes, candidate.numaNodes) ? current.numaNodes : candidate.numaNodes;
    return sameMask(best, current.numaNodes) ? current : candidate;
  };
  const target = bestNonPreferredCount(filtered);
  const compare = (current: Candidate | null, candidate: Candidate): Candidate | null => {
    if (candidate.numaNodes.length === 0) return current;
    if (current === null) return candidate;
    if (!current.preferred && candidate.preferred) return candidate;
    if (current.preferred && !candidate.preferred) return current;
    if (current.preferred && candidate.preferred) return fitter(current, candidate);
    // Both non-preferred: come as close as possible to `target` nodes without exceeding it.
    const cur = current.numaNodes.length;
    const cand = candidate.numaNodes.length;
    if (cur > target) return fitter(current, candidate);
    if (cur === target) return cand === target ? fitter(current, candidate) : current;
    if (cand > target) return current;
    if (cand === target) return candidate;
    if (cand > cur) return candidate;
    if (cand < cur) return current;
    return fitter(current, candidate);
  };

  let best: Candidate | null = null;
  const walk = (i: number, accum: TopologyAffinity[]): void => {
    if (i === filtered.length) {
      best = compare(best, mergePermutation(defaultMask, accum));
      return;
    }
    for (const hint of filtered[i] ?? []) walk(i + 1, [...accum, hint]);
  };
  walk(0, []);
  return best ?? { numaNodes: defaultMask, preferred: false };
}
