/**
 * The eviction manager's effects:
 * - `observe`: the node's stats (the node part of Go's summaryProvider.Get(ctx, true): memory, file
 *   systems, image file system, pids) turned into signal observations and the time of the reading on
 *   the injected clock. A failed read answers null and is logged, as Go logs "failed to get summary
 *   stats" and skips the cycle.
 * - `listCandidates`: the active pods as eviction candidates, with their usage from a full summary
 *   read made then, in the cycles that rank pods only. Go ranks with the summary it observed; ours
 *   is read a moment later, so a quiet node lists and sizes no container every 10 s (on a node of
 *   many pods that read is a large part of its idle CPU: docs/FINDINGS.md). A failed read answers no
 *   candidate: no pod is evicted this cycle, as Go evicts none when its summary fails.
 * - `listLocalStorage`: the active pods that set a local storage limit, with their usage from a full
 *   summary read, made only when such a pod runs; a failed read answers none (no eviction this cycle).
 * - `reclaimNodeLevel`: Go's node-level reclaim for disk signals: container GC, then every unused
 *   image, each failure logged and the next one still tried; then a fresh reading, so the machine can
 *   tell whether that was enough.
 */
import { fromPromise } from 'xstate';
import { evictionCandidates } from '../../domain/eviction/candidates.js';
import { anyLocalStorageLimit, localStorageSubjects } from '../../domain/eviction/local-storage.js';
import { hasDedicatedImageFs, signalObservations } from '../../domain/eviction/observations.js';
import type { Logger } from '../../log.js';
import type { Summary } from '../../domain/stats/summary-types.js';
import type { ListCandidatesOutput, ListLocalStorageOutput, ObserveOutput, ReclaimInput, ReclaimOutput } from '../../machines/eviction-manager.machine.js';
import type { Clock } from '../../ports/clock.js';
import type { EvictionHost } from '../../ports/eviction-host.js';
import type { GarbageCollectors } from '../../ports/gc-host.js';

export interface EvictionActorDeps {
  host: EvictionHost;
  /** Undefined until runKubelet.garbageCollection started them: then there is nothing to reclaim with. */
  collectors: () => GarbageCollectors | undefined;
  clock: Clock;
  logger: Logger;
}

export function createEvictionActors(deps: EvictionActorDeps) {
  const { host, clock, logger } = deps;
  const read = async (): Promise<ObserveOutput> => {
    try {
      const summary = await host.nodeSummary();
      return { observations: signalObservations(summary), dedicatedImageFs: hasDedicatedImageFs(summary), observedAtMs: clock.now() };
    } catch (err) {
      logger.warn({ err }, 'Eviction manager: failed to get summary stats');
      return null;
    }
  };
  const podStats = async (): Promise<Summary['pods'] | null> => {
    try {
      return (await host.summary()).pods;
    } catch (err) {
      logger.warn({ err }, 'Eviction manager: failed to get summary stats');
      return null;
    }
  };
  return {
    observe: fromPromise<ObserveOutput, Record<string, never>>(read),
    listCandidates: fromPromise<ListCandidatesOutput, Record<string, never>>(async () => {
      const stats = await podStats();
      return stats ? evictionCandidates(host.activePods(), stats) : [];
    }),
    listLocalStorage: fromPromise<ListLocalStorageOutput, Record<string, never>>(async () => {
      const pods = host.activePods();
      if (!anyLocalStorageLimit(pods)) return [];
      const stats = await podStats();
      return stats ? localStorageSubjects(pods, stats) : [];
    }),
    reclaimNodeLevel: fromPromise<ReclaimOutput, ReclaimInput>(async ({ input }) => {
      const collectors = deps.collectors();
      for (const [what, run] of [['containers', collectors?.deleteAllUnusedContainers], ['images', collectors?.deleteUnusedImages]] as const) {
        try {
          await run?.();
        } catch (err) {
          logger.info({ err, resourceName: input.resource, what }, 'Eviction manager: unexpected error when attempting to reduce resource pressure');
        }
      }
      const fresh = await read();
      return { observations: fresh?.observations ?? null };
    }),
  };
}
