/**
 * Housekeeping (Go's HandlePodCleanups) as the syncLoop does it: orphans killed, and the cgroups
 * and directories of pods that may still run kept.
 */
import { findOrphans } from '../pod/orphans.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import { isRunningLifecycle, type OrphanEntry, type SyncLoopState } from './state.js';

type OrphanState = Pick<SyncLoopState, 'pods' | 'orphans' | 'runtimePodUids' | 'sourcesReady' | 'runtime'>;

/**
 * A runtime-only worker for each pod the runtime runs that no source has and no worker handles;
 * only once every source was seen and while the runtime is ready (Go skips housekeeping then).
 */
export function decideOrphanKills<S extends OrphanState>(state: S): Decision<S> {
  if (!state.sourcesReady || !state.runtime.healthy) return { state, commands: [] };
  const found = findOrphans(state.runtimePodUids, new Set(Object.keys(state.pods)), new Set(Object.keys(state.orphans)));
  if (found.length === 0) return { state, commands: [] };
  const added: Record<string, OrphanEntry> = {};
  const commands: SyncLoopCommand[] = [];
  for (const uid of found) {
    commands.push({ kind: 'startRuntimeOnlyWorker', podUid: uid });
    added[uid] = { deferred: null };
  }
  return { state: { ...state, orphans: { ...state.orphans, ...added } }, commands };
}

/** Pods whose worker is not done (active or terminating) and orphans being killed, sorted. */
export function possiblyRunningPods(state: Pick<SyncLoopState, 'pods' | 'orphans'>): string[] {
  const running = Object.entries(state.pods).filter(([, e]) => isRunningLifecycle(e.lifecycle)).map(([uid]) => uid);
  return [...running, ...Object.keys(state.orphans)].sort();
}

/** cleanupOrphanedPodCgroups: the cgroups of pods that may still run are kept; nothing before every source was seen. */
export function podCgroupsToKeep(state: Pick<SyncLoopState, 'pods' | 'orphans' | 'sourcesReady'>): SyncLoopCommand[] {
  return state.sourcesReady ? [{ kind: 'keepPodCgroups', podUids: possiblyRunningPods(state) }] : [];
}
