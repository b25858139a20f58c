/**
 * Orphaned pods (HandlePodCleanups in pkg/kubelet/kubelet_pods.go): pods the runtime runs that no
 * pod source has and no pod worker is in charge of, typically left running across a kubelet
 * restart while their manifest was removed. Go asks the pod workers to kill each one as a
 * runtime-only pod (SyncPodKill with the RunningPod and a 1 s grace period override); it knows no
 * spec, only what the runtime's labels say.
 */
import type { Pod } from './types.js';

/** The grace period override Go kills orphans with (the container kill still floors it at 2 s). */
export const orphanGracePeriodSeconds = 1;

/**
 * Running runtime pods that are not known to the pod config (any lifecycle: a rejected or
 * terminated pod still in a source is not an orphan, as Go's allPodsByUID) and have no worker.
 */
export function findOrphans(running: readonly string[], known: ReadonlySet<string>, handled: ReadonlySet<string>): string[] {
  return running.filter((uid) => !known.has(uid) && !handled.has(uid));
}

/**
 * The pod a worker kills a runtime-only pod as (Go's runningPod.ToAPIPod, before the names are
 * known): the uid and nothing else; the runtime manager takes the name and namespace from the
 * runtime's labels when it reads the pod.
 */
export function runtimeOnlyPod(uid: string): Pod {
  return { metadata: { uid, name: '' }, spec: { containers: [] } };
}
