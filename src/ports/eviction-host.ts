/**
 * What the eviction manager reads from the rest of the kubelet (Go: the summary provider with
 * updateStats, and GetActivePods).
 */
import type { Pod } from '../domain/pod/types.js';
import type { Summary } from '../domain/stats/summary-types.js';

export interface EvictionHost {
  /** The node and pod stats now, as GET /stats/summary answers. Rejects with KLT_ERR_STATS_UNAVAILABLE. */
  summary(): Promise<Summary>;
  /** The node's part of it alone (no pods): every signal's reading. Rejects as summary() does. */
  nodeSummary(): Promise<Summary>;
  /** The pods the kubelet runs and may evict: admitted, not terminating, not Succeeded or Failed. */
  activePods(): readonly Pod[];
}
