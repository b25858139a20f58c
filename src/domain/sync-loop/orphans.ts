/**
 * Housekeeping (Go's HandlePodCleanups) as the syncLoop does it: orphans killed, and the cgroups
 * and directories of pods that may still run kept.
 */
import { findOrphans } from '../pod/orphans.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import { isRunningLifecycle, type OrphanEntry, type SyncLoopState } from './state.js';

type OrphanState = Pick<SyncLoopState, 'pods' | 'orphans' | 'runtimePodUids' | 'sourcesReady' | 'runtime' | 'awaitingNode'>;

/**
 * A runtime-only worker for each pod the runtime runs that no source has and no worker handles;
 * only once every source was seen and while the runtime is ready (Go skips housekeeping then).
 */
export function decideOrphanKills<S extends OrphanState>(state: S): Decision<S> {
  if (!state.sourcesReady || !state.runtime.healthy) return { state, commands: [] };
  // A pod waiting for the Node to be read again is known: not killed as an orphan after a restart.
  const found = findOrphans(state.runtimePodUids, new Set([...Object.keys(state.pods), ...Object.keys(state.awaitingNode)]), new Set(Object.keys(state.orphans)));
  if (found.length === 0) return { state, commands: [] };
  const added: Record<string, OrphanEntry> = {};
  const commands: SyncLoopCommand[] = [];
  for (const uid of found) {
    commands.push({ kind: 'startRuntimeOnlyWorker', podUid: uid });
    added[uid] = { deferred: null };
  }
  return { state: { ...state, orphans: { ...state.orphans, ...added } }, commands };
}

/** Pods whose worker is not done (active or terminating), orphans being killed and pods waiting for the Node, sorted. */
export function possiblyRunningPods(state: Pick<SyncLoopState, 'pods' | 'orphans' | 'awaitingNode'>): string[] {
  const running = Object.entries(state.pods).filter(([, e]) => isRunningLifecycle(e.lifecycle)).map(([uid]) => uid);
  return [...running, ...Object.keys(state.orphans), ...Object.keys(state.awaitingNode)].sort();
}

/** Every pod this syncLoop knows of, for housekeeping's cleanupOrphanedPodDirs. */
export function knownPods(state: Pick<SyncLoopState, 'pods' | 'orphans' | 'awaitingNode'>): string[] {
  return [...Object.keys(state.pods), ...Object.keys(state.orphans), ...Object.keys(state.awaitingNode)];
}

/** cleanupOrphanedPodCgroups: the cgroups of pods that may still run are kept; nothing before every source was seen. */
export function podCgroupsToKeep(state: Pick<SyncLoopState, 'pods' | 'orphans' | 'sourcesReady' | 'awaitingNode'>): SyncLoopCommand[] {
  return state.sourcesReady ? [{ kind: 'keepPodCgroups', podUids: possiblyRunningPods(state) }] : [];
}
