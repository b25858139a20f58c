/**
 * Go's DRA reconcile loop: every period, once every pod source has been seen, the claims kept for
 * pods that no longer run are unprepared (a pod deleted while the kubelet was down has no kill of
 * its own to do it). One pass at a time; the next is timed from the end of the last.
 */
import type { Clock } from '../../ports/clock.js';
import type { DraClaimManager } from '../../ports/dra-claims.js';

/** Go's defaultReconcilePeriod (not configurable there either). */
export const CLAIM_RECONCILE_PERIOD_MS = 60_000;

export interface ClaimReconcileLoopDeps {
  manager: Pick<DraClaimManager, 'reconcile'>;
  /** The pods that may still run, or null before every source has been seen (nothing is known to be gone then). */
  holders: () => ReadonlySet<string> | null;
  clock: Clock;
  periodMs?: number;
}

export function startClaimReconcileLoop(deps: ClaimReconcileLoopDeps): { stop: () => void } {
  const periodMs = deps.periodMs ?? CLAIM_RECONCILE_PERIOD_MS;
  let timer: unknown;
  let stopped = false;
  const pass = async () => {
    const holders = deps.holders();
    // reconcile logs each failure itself and never rejects.
    if (holders) await deps.manager.reconcile(holders);
    if (!stopped) timer = deps.clock.setTimeout(() => void pass(), periodMs);
  };
  void pass();
  return {
    stop: () => {
      stopped = true;
      deps.clock.clearTimeout(timer);
    },
  };
}
