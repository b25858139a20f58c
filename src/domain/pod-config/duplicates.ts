/**
 * Two manifests of one source giving the same pod (same `<name>_<namespace>`): the first one (in
 * the source's order: file names sorted, list order for a URL) is kept and every later one is
 * rejected with a reason naming both origins.
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

export function dropDuplicatePods(entries: PodFromOrigin[]): { kept: PodFromOrigin[]; rejected: RejectedManifest[] } {
  const firstOrigin = new Map<string, string>();
  const kept: PodFromOrigin[] = [];
  const rejected: RejectedManifest[] = [];
  for (const entry of entries) {
    const key = podFullName(entry.pod);
    const first = firstOrigin.get(key);
    if (first === undefined) {
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
