/**
 * The vocabulary of pod config (Go's pkg/kubelet/types PodUpdate and pkg/kubelet/config): where
 * pods come from, the operations the merge emits, and the annotations the kubelet puts on pods.
 * Plain JSON only: these values travel in events and the journal.
 */
import type { Pod } from '../pod/types.js';

/** The pod sources built so far (Go's kubetypes.FileSource "file", HTTPSource "http"). */
/** file: staticPodPath; http: staticPodURL; api: the API server's pods bound to this node. */
export type PodSourceName = 'file' | 'http' | 'api';

/**
 * Go's PodOperation in mode PodConfigNotificationIncremental. SET is never emitted in that mode,
 * so it is not part of the union.
 * - ADD: a pod the source had not given before.
 * - UPDATE: the spec, labels, non-local annotations or deletion fields changed.
 * - DELETE: the change is a graceful deletion request (deletionTimestamp set).
 * - REMOVE: the pod is gone from its source.
 * - RECONCILE: only the status changed.
 */
export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

export interface PodUpdate {
  op: PodOperation;
  source: PodSourceName;
  pods: Pod[];
}

/** A manifest (a file, a URL) that gave no pod, and why. `origin` is the file name or the URL. */
export interface RejectedManifest {
  origin: string;
  reason: string;
}

/** What one read of a source found: every pod it has now, and what it had to skip. */
export interface SourceSnapshot {
  pods: Pod[];
  rejected: RejectedManifest[];
}

/** Annotation keys the kubelet adds (pkg/kubelet/types pod_update.go). */
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';
export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';
export const CONFIG_MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/** Annotations owned by the kubelet itself: ignored when deciding whether a pod changed (Go's localAnnotations). */
export const LOCAL_ANNOTATIONS: readonly string[] = [
  CONFIG_SOURCE_ANNOTATION,
  CONFIG_MIRROR_ANNOTATION,
  CONFIG_SEEN_ANNOTATION,
];

/** Go's kubecontainer.GetPodFullName: `<name>_<namespace>`, the key pods are unique by. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? 'default'}`;
}
