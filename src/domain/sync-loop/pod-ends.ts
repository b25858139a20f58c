/**
 * How a pod's worker ends: it finished (Go's pod worker reaching terminated), the eviction manager
 * asked for the pod's kill, or the worker (or a probe worker) threw.
 */
import { podWorkerId } from '../actor-ids.js';
import { isPodContentRemovable } from '../pod/lifecycle.js';
import { sandboxesKept } from '../runtime/dead-sandboxes.js';
import { runtimeOnlyPod } from '../pod/orphans.js';
import { crashedPodStatus, REASON_POD_ACTOR_FAILED } from '../pod/spec-identity.js';
import type { Pod } from '../pod/types.js';
import type { Decision, KillEviction, SyncLoopCommand } from './commands.js';
import { podCgroupsToKeep } from './orphans.js';
import { retryDeferredResizes } from './pod-resize.js';
import { probeWorkersOf } from './probe-workers.js';
import { releaseResources } from './resources.js';
import type { KillRequester, PodEntry, SyncLoopState } from './state.js';

const podRefOf = (pod: Pod) => ({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid ?? '' });

/**
 * The worker reached `terminated` (it waits there to be stopped): nothing of the pod runs, so its
 * volumes and directory go, its probe workers stop, its cgroup goes (Go: at the next housekeeping)
 * and its dead containers when its content may go, and what the resource managers gave it goes back
 * to their pools, where a deferred resize may now fit. An orphan is forgotten, and a source's pod with its uid that waited is added. A
 * removed pod is forgotten; the eviction manager hears of its kill.
 * `exitedContainerIds` (the worker's last view, read after the kill) go as they are, without the
 * deletor reading the runtime; its sandboxes are then left to the PLEG's report of those removals,
 * since a sandbox goes only once no container names it.
 */
export function decideWorkerTerminated(current: SyncLoopState, uid: string, exitedContainerIds?: readonly string[]): Decision<SyncLoopState> {
  const released = releaseResources(current, uid);
  const state = released.state;
  const commands: SyncLoopCommand[] = [
    { kind: 'stop', id: podWorkerId(uid) },
    { kind: 'releaseVolumes', podUid: uid, removeDirectory: true },
    ...released.commands,
  ];
  const orphan = state.orphans[uid];
  if (orphan) {
    const { [uid]: _done, ...orphans } = state.orphans;
    const next = { ...state, orphans };
    commands.push(...podCgroupsToKeep(next));
    if (orphan.deferred) commands.push({ kind: 'addDeferred', pod: orphan.deferred.pod, source: orphan.deferred.source });
    return { state: next, commands };
  }
  const entry = state.pods[uid];
  if (!entry) return { state, commands };
  for (const id of probeWorkersOf(uid, entry)) commands.push({ kind: 'stop', id });
  if (entry.evicting) commands.push({ kind: 'evictionFinished', requester: entry.evicting, podUid: uid, evicted: true });
  const { evicting: _answered, ...rest } = entry;
  const terminated: PodEntry = { ...rest, lifecycle: 'terminated', probedStarts: {} };
  if (isPodContentRemovable(terminated, state.sourcesReady)) {
    // Its sandbox may have stopped, its containers gone, while the worker was still terminating.
    const named = exitedContainerIds;
    if (named === undefined || named.length > 0) {
      commands.push({ kind: 'removeDeadContainers', podUid: uid, containerId: null, keep: 0, ...(named ? { containerIds: [...named] } : {}) });
    }
    if (named === undefined || named.length === 0) commands.push({ kind: 'removeDeadSandboxes', podUid: uid, keep: sandboxesKept(true) });
  }
  const pods = { ...state.pods };
  if (entry.removed) delete pods[uid];
  else pods[uid] = terminated;
  // What it held is free: a deferred resize may fit now (Go retries them when pods are removed).
  const retried = retryDeferredResizes({ ...state, pods });
  return { state: retried.state, commands: [...commands, ...podCgroupsToKeep(retried.state), ...retried.commands] };
}

export interface EvictRequest { podUid: string; gracePeriodSeconds: number; eviction: KillEviction; requester: KillRequester }

/** The eviction manager's killPodFunc (the node shutdown manager's too): the worker kills the pod and ends it Failed with the given reason. */
export function decideEviction<S extends Pick<SyncLoopState, 'pods'>>(state: S, request: EvictRequest): Decision<S> {
  const entry = state.pods[request.podUid];
  // The requester waits for an answer (it is stopped after the syncLoop): no active pod, none evicted.
  if (entry?.lifecycle !== 'active') return { state, commands: [{ kind: 'evictionFinished', requester: request.requester, podUid: request.podUid, evicted: false }] };
  const commands: SyncLoopCommand[] = [{ kind: 'tellWorker', podUid: request.podUid, message: { type: 'pod.kill.requested', gracePeriodSeconds: request.gracePeriodSeconds, reason: 'evicted', eviction: request.eviction } }];
  for (const id of probeWorkersOf(request.podUid, entry)) commands.push({ kind: 'tellProbe', id, message: { type: 'probe.pod.terminating' } });
  return { state: { ...state, pods: { ...state.pods, [request.podUid]: { ...entry, lifecycle: 'terminating', evicting: request.requester } } }, commands };
}

/**
 * A pod worker or probe worker threw (a kubelet bug met with one pod's data): that pod fails
 * (status Failed, a Warning event, an error logged), a runtime-only worker kills whatever of it
 * runs, and every other pod goes on. A runtime-only worker that throws is forgotten.
 */
export function decideCrashedActor(state: SyncLoopState, crashed: { id: string; uid: string; message: string }): Decision<SyncLoopState> {
  const { id, uid, message } = crashed;
  const pod = state.pods[uid]?.pod ?? runtimeOnlyPod(uid);
  const commands: SyncLoopCommand[] = [
    { kind: 'stop', id },
    { kind: 'emit', event: { type: 'pod.actor.failed', pod: podRefOf(pod), actorId: id, message } },
  ];
  if (state.orphans[uid]) {
    if (id !== podWorkerId(uid)) return { state, commands };
    const { [uid]: _forgotten, ...orphans } = state.orphans;
    return { state: { ...state, orphans }, commands };
  }
  const entry = state.pods[uid];
  if (!entry || entry.lifecycle === 'rejected' || entry.lifecycle === 'terminated') return { state, commands };
  commands.push({ kind: 'stop', id: podWorkerId(uid) });
  for (const probe of probeWorkersOf(uid, entry)) commands.push({ kind: 'stop', id: probe });
  const status = crashedPodStatus(entry.pod, message);
  commands.push(
    { kind: 'reportStatus', podUid: uid, status },
    { kind: 'emit', event: { type: 'pod.admission.rejected', pod: podRefOf(entry.pod), reason: REASON_POD_ACTOR_FAILED, message } },
    { kind: 'startRuntimeOnlyWorker', podUid: uid },
  );
  return {
    state: {
      ...state,
      pods: { ...state.pods, [uid]: { ...entry, lifecycle: 'rejected', status, probedStarts: {} } },
      orphans: { ...state.orphans, [uid]: { deferred: null } },
    },
    commands,
  };
}
