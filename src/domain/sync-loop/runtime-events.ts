/**
 * What the runtime's side tells the syncLoop: the PLEG's events (Go's plegCh) and the runtime's
 * health.
 */
import { isPodContentRemovable } from '../pod/lifecycle.js';
import type { RuntimeEventNote } from '../pleg/view-shows-events.js';
import { sandboxesKept } from '../runtime/dead-sandboxes.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import { decideOrphanKills } from './orphans.js';
import { isRunningLifecycle, type SyncLoopSettings, type SyncLoopState } from './state.js';

export interface PlegEvents {
  events: { podUid: string; type: string; containerId?: string }[];
  runningPodUids?: string[];
  discardedPodUids?: string[];
}

/**
 * Each pod with an event syncs now, unless the runtime is not ready (Go's syncLoop skips its
 * iterations then); each ContainerDied asks for the older exited instances of that container to go
 * (Go's pod container deletor), all of them when the pod's content may go; and each pod with a
 * ContainerDied or ContainerRemoved (the PLEG reports sandboxes as containers) has its stopped
 * sandboxes removed, once per batch (Go's pod sandbox deletor). A changed set of running
 * pods is kept, and looked through for orphans, even while the runtime is not ready.
 */
export function decidePlegEvents(state: SyncLoopState, settings: Pick<SyncLoopSettings, 'deadContainersKept'>, pleg: PlegEvents): Decision<SyncLoopState> {
  let next = state;
  const commands: SyncLoopCommand[] = [];
  if (pleg.runningPodUids) {
    const killed = decideOrphanKills({ ...next, runtimePodUids: pleg.runningPodUids });
    next = killed.state;
    commands.push(...killed.commands);
  }
  // Pods whose every event was dropped: their last runtime view is out of date (the PLEG's note).
  for (const uid of pleg.discardedPodUids ?? []) {
    if (state.pods[uid]?.lifecycle === 'active') commands.push({ kind: 'tellWorker', podUid: uid, message: { type: 'pod.runtime.unseen' } });
  }
  if (!state.runtime.healthy) return { state: next, commands };
  for (const [uid, runtimeEvents] of eventsByPod(pleg.events)) {
    if (isRunningLifecycle(state.pods[uid]?.lifecycle)) commands.push({ kind: 'tellWorker', podUid: uid, message: { type: 'pod.sync.requested', reason: 'pleg', ...(runtimeEvents ? { runtimeEvents } : {}) } });
  }
  for (const e of pleg.events) {
    if (e.type !== 'ContainerDied' || e.containerId === undefined) continue;
    const removeAll = isPodContentRemovable(state.pods[e.podUid], state.sourcesReady);
    commands.push({ kind: 'removeDeadContainers', podUid: e.podUid, containerId: removeAll ? null : e.containerId, keep: removeAll ? 0 : settings.deadContainersKept });
  }
  const sandboxPods = new Set(pleg.events.filter((e) => e.type === 'ContainerDied' || e.type === 'ContainerRemoved').map((e) => e.podUid));
  for (const uid of sandboxPods) {
    commands.push({ kind: 'removeDeadSandboxes', podUid: uid, keep: sandboxesKept(isPodContentRemovable(state.pods[uid], state.sourcesReady)) });
  }
  return { state: next, commands };
}

/**
 * Each pod's events, in the order reported, for its worker to tell whether its last view already
 * shows them (view-shows-events.ts); undefined for a pod with an event that names no container.
 */
function eventsByPod(events: PlegEvents['events']): Map<string, RuntimeEventNote[] | undefined> {
  const byPod = new Map<string, RuntimeEventNote[] | undefined>();
  for (const e of events) {
    if (!byPod.has(e.podUid)) byPod.set(e.podUid, []);
    if (e.containerId === undefined) byPod.set(e.podUid, undefined);
    else byPod.get(e.podUid)?.push({ type: e.type, containerId: e.containerId });
  }
  return byPod;
}

/** The runtime's health: back from an outage, every pod syncs now rather than at its next resync, and orphans go. */
export function decideRuntimeHealth(state: SyncLoopState, health: { health: 'ready' | 'notReady' | 'down'; reason: string }): Decision<SyncLoopState> {
  const healthy = health.health === 'ready';
  const next = { ...state, runtime: { healthy, reason: health.reason } };
  if (!healthy || state.runtime.healthy) return { state: next, commands: [] };
  const commands: SyncLoopCommand[] = [];
  for (const [uid, p] of Object.entries(state.pods)) {
    if (isRunningLifecycle(p.lifecycle)) commands.push({ kind: 'tellWorker', podUid: uid, message: { type: 'pod.sync.requested', reason: 'runtime ready' } });
  }
  const killed = decideOrphanKills(next);
  return { state: killed.state, commands: [...commands, ...killed.commands] };
}
