/**
 * The apiserver pod source's view (Go's pkg/kubelet/config/apiserver.go over a reflector): the
 * pods the API server has bound to this node, kept by UID as list and watch events arrive, and
 * turned into what the pod config expects of a source. Pure.
 *
 * - Pods keep their UID (no static-pod treatment); the API defaults fill only missing fields
 *   (an API server has already applied them; a test double or an older server may not have).
 * - Mirror pods are not pods to run: they are split off for the status manager (Go's pod
 *   manager keeps them apart from the pods it syncs).
 * - A pod to run whose UID is not one safe path segment (pod-uid.ts) is refused: the kubelet
 *   names directories after UIDs. It is reported by `namespace/name`, as the file source reports a
 *   manifest by its path. Differs from Go, which takes any UID the API server gives. Mirror pods
 *   are not held to it: nothing on the node is named after theirs.
 */
import type { Pod } from '../pod/types.js';
import { applyPodDefaults } from '../pod-config/pod-defaults.js';
import { podUidError } from '../pod-config/pod-uid.js';
import type { RejectedManifest } from '../pod-config/types.js';
import { isMirrorPod } from './mirror-pods.js';

export type ApiPodChange =
  | { type: 'ADDED' | 'MODIFIED'; pod: Pod }
  | { type: 'DELETED'; pod: Pod };

/** The pods by UID after one watch event; a new map, the old one untouched. */
export function applyPodChange(pods: ReadonlyMap<string, Pod>, change: ApiPodChange): Map<string, Pod> {
  const next = new Map(pods);
  if (change.type === 'DELETED') next.delete(change.pod.metadata.uid);
  else next.set(change.pod.metadata.uid, change.pod);
  return next;
}

export interface ApiPodView {
  /** Pods to run, API defaults applied where missing, sorted by namespace/name for a stable order. */
  pods: Pod[];
  /** Mirror pods of this node's static pods, as the API server has them. */
  mirrorPods: Pod[];
  /** Pods refused for their UID, by `namespace/name`, sorted. */
  refused: RejectedManifest[];
}

const byFullName = (a: Pod, b: Pod): number => {
  const ka = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** An API pod as the pod config takes it: the namespace and the API defaults filled where missing. */
export function podToRun(pod: Pod): Pod {
  return applyPodDefaults({ ...pod, metadata: { ...pod.metadata, namespace: pod.metadata.namespace ?? 'default' } });
}

/**
 * podToRun, answered once per API object: while the source holds an unchanged object it hands on the
 * same pod, which the pod config then knows unchanged by identity (merge.ts). A cache by object
 * identity, no state of its own beyond that.
 */
export function podToRunPerObject(): (pod: Pod) => Pod {
  const made = new WeakMap<Pod, Pod>();
  return (pod) => {
    let run = made.get(pod);
    if (run === undefined) made.set(pod, (run = podToRun(pod)));
    return run;
  };
}

/**
 * `toRun` is podToRun unless the caller keeps its answers (podToRunPerObject): the source hands the same object on for
 * an API object that has not changed, and the pod config then knows it unchanged by identity
 * (merge.ts) instead of serialising it again on every watch event.
 */
export function viewApiPods(pods: Iterable<Pod>, toRun: (pod: Pod) => Pod = podToRun): ApiPodView {
  const regular: Pod[] = [];
  const mirrorPods: Pod[] = [];
  const refused: RejectedManifest[] = [];
  for (const pod of pods) {
    if (isMirrorPod(pod)) {
      mirrorPods.push(pod);
      continue;
    }
    const uidError = podUidError(pod.metadata.uid);
    if (uidError === undefined) regular.push(toRun(pod));
    else refused.push({ origin: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`, reason: uidError });
  }
  refused.sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
  return { pods: regular.sort(byFullName), mirrorPods: mirrorPods.sort(byFullName), refused };
}
