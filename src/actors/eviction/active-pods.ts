/**
 * Go's GetActivePods as the eviction manager sees it: the pods the syncLoop admitted whose workers
 * are not terminating them and that have not reached Succeeded or Failed. A pod already being
 * killed is left out (Go ranks it too, and its second kill waits on the first).
 */
import { isTerminalPhase } from '../../domain/pod/status.js';
import type { Pod } from '../../domain/pod/types.js';
import type { SyncLoopContext } from '../../machines/sync-loop.machine.js';

export function evictablePods(syncLoop: Pick<SyncLoopContext, 'pods'> | undefined): Pod[] {
  if (!syncLoop) return [];
  return Object.values(syncLoop.pods)
    .filter((p) => p.lifecycle === 'active' && !isTerminalPhase(p.status?.phase))
    .map((p) => p.pod);
}
