/**
 * Two manifests of one source giving the same pod (same `<name>_<namespace>`): one is kept and every
 * other is rejected with a reason naming both origins. The one kept is the one that gave the pod at
 * the source's previous read (`previousOrigins`), so a new file with a running pod's name never
 * replaces (kills) the running pod; otherwise the first in the source's order (file names
 * sorted, list order for a URL).
 *
 * Differs from Go on purpose: Go's file source keys its store by namespace/name, so the later file
 * silently replaces the earlier one; only within one PodList does Go's filterInvalidPods drop the
 * later pod (with a FailedValidation event). We always keep the first and always say so.
 */
import type { Pod } from '../pod/types.js';
import { podFullName, type RejectedManifest } from './types.js';

export interface PodFromOrigin {
  origin: string;
  pod: Pod;
}

export function dropDuplicatePods(
  entries: PodFromOrigin[],
  previousOrigins: ReadonlyMap<string, string> = new Map(),
): { kept: PodFromOrigin[]; rejected: RejectedManifest[] } {
  const firstOrigin = new Map<string, string>();
  for (const entry of entries) {
    const key = podFullName(entry.pod);
    if (previousOrigins.get(key) === entry.origin) firstOrigin.set(key, entry.origin);
  }
  const kept: PodFromOrigin[] = [];
  const rejected: RejectedManifest[] = [];
  for (const entry of entries) {
    const key = podFullName(entry.pod);
    const first = firstOrigin.get(key);
    if (first === undefined || first === entry.origin) {
      firstOrigin.set(key, entry.origin);
      kept.push(entry);
      continue;
    }
    const { name, namespace } = entry.pod.metadata;
    rejected.push({
      origin: entry.origin,
      reason: `duplicate pod name ${JSON.stringify(`${namespace ?? 'default'}/${name}`)}: already given by ${first}, ignoring`,
    });
  }
  return { kept, rejected };
}

/** Which origin gave each pod, by `<name>_<namespace>`: the `previousOrigins` of the next read. */
export function originsOf(kept: readonly PodFromOrigin[]): Map<string, string> {
  return new Map(kept.map((entry) => [podFullName(entry.pod), entry.origin]));
}
