/**
 * What the runtime's side tells the syncLoop: the PLEG's events (Go's plegCh) and the runtime's
 * health.
 */
import { isPodContentRemovable } from '../pod/lifecycle.js';
import type { PodDeadCounts } from '../pleg/dead-counts.js';
import type { RuntimeEventNote } from '../pleg/view-shows-events.js';
import { sandboxesKept } from '../runtime/dead-sandboxes.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import { decideOrphanKills } from './orphans.js';
import { isRunningLifecycle, type SyncLoopSettings, type SyncLoopState } from './state.js';

export interface PlegEvents {
  events: { podUid: string; type: string; containerId?: string }[];
  runningPodUids?: string[];
  discardedPodUids?: string[];
  /** What the relist shows of the dead of the pods whose containers died or went; absent: unknown. */
  deadCounts?: Record<string, PodDeadCounts>;
}

/**
 * Each pod with an event syncs now, unless the runtime is not ready (Go's syncLoop skips its
 * iterations then); each ContainerDied asks for the older exited instances of that container to go
 * (Go's pod container deletor), all of them, once per batch, when the pod's content may go; and
 * each pod with a ContainerDied or ContainerRemoved (the PLEG reports sandboxes as containers) has
 * its stopped sandboxes removed, once per batch (Go's pod sandbox deletor). No request is made
 * where the relist's counts show nothing it would remove. A changed set of running pods is kept,
 * and looked through for orphans, even while the runtime is not ready.
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
  const removingAll = new Set<string>();
  for (const e of pleg.events) {
    if (e.type !== 'ContainerDied' || e.containerId === undefined || removingAll.has(e.podUid)) continue;
    const removeAll = isPodContentRemovable(state.pods[e.podUid], state.sourcesReady);
    if (removeAll) removingAll.add(e.podUid);
    const request = deadContainersRequest(e.podUid, removeAll ? null : e.containerId, removeAll ? 0 : settings.deadContainersKept, pleg.deadCounts?.[e.podUid]);
    if (request) commands.push(request);
  }
  const sandboxPods = new Set(pleg.events.filter((e) => e.type === 'ContainerDied' || e.type === 'ContainerRemoved').map((e) => e.podUid));
  for (const uid of sandboxPods) {
    const request = deadSandboxesRequest(uid, sandboxesKept(isPodContentRemovable(state.pods[uid], state.sourcesReady)), pleg.deadCounts?.[uid]);
    if (request) commands.push(request);
  }
  return { state: next, commands };
}

/** The container deletor's request, unless the counts show no more dead than it would keep. */
function deadContainersRequest(podUid: string, containerId: string | null, keep: number, counts: PodDeadCounts | undefined): SyncLoopCommand | null {
  const dead = counts === undefined ? Infinity : containerId === null ? counts.exited : counts.exitedOfName[containerId] ?? 0;
  return dead > keep ? { kind: 'removeDeadContainers', podUid, containerId, keep } : null;
}

/** The sandbox deletor's request, unless the pod has no more sandboxes than it keeps. */
function deadSandboxesRequest(podUid: string, keep: number, counts: PodDeadCounts | undefined): SyncLoopCommand | null {
  return (counts?.sandboxes ?? Infinity) > keep ? { kind: 'removeDeadSandboxes', podUid, keep } : null;
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
