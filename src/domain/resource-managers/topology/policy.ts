/**
 * The four topology manager policies and their admit decision (Go: policy_none.go,
 * policy_best_effort.go, policy_restricted.go, policy_single_numa_node.go):
 * - none: no alignment, always admits;
 * - best-effort: the merged affinity, always admits;
 * - restricted: the merged affinity, admits only a preferred one;
 * - single-numa-node: merges only single-node (or don't-care) preferred hints, admits only a preferred
 *   result, and hands the allocators no affinity when that result spans the whole machine.
 */
import type { ProviderHints, TopologyAffinity, TopologySettings } from './hint.js';
import { filterProvidersHints, mergeFilteredHints } from './merge.js';
import { sameMask } from './numa-mask.js';
import { parsePolicyOptions } from './policy-options.js';

export interface MergeResult {
  affinity: TopologyAffinity;
  admit: boolean;
}

/** Go's filterSingleNumaHints: only preferred hints on one NUMA node, or preferred don't-cares. */
function singleNumaHints(filtered: TopologyAffinity[][]): TopologyAffinity[][] {
  return filtered.map((hints) => hints.filter((h) => h.preferred && (h.numaNodes === null || h.numaNodes.length === 1)));
}

/** Go's Policy.Merge: the affinity for the allocators and whether the pod may be admitted. */
export function mergeHints(settings: TopologySettings, providersHints: readonly ProviderHints[]): MergeResult {
  if (settings.policy === 'none') return { affinity: { numaNodes: null, preferred: false }, admit: true };
  const machine = { numaNodes: settings.numaNodes, distances: settings.distances, ...parsePolicyOptions(settings.options) };
  const filtered = filterProvidersHints(providersHints);
  if (settings.policy === 'single-numa-node') {
    const best = mergeFilteredHints(machine, settings.policy, singleNumaHints(filtered));
    const affinity = sameMask(best.numaNodes, settings.numaNodes) ? { numaNodes: null, preferred: best.preferred } : best;
    return { affinity, admit: best.preferred };
  }
  const best = mergeFilteredHints(machine, settings.policy, filtered);
  return { affinity: best, admit: settings.policy === 'best-effort' || best.preferred };
}
