/**
 * Which pods the runtime is running (Go's runtime cache GetPods with all=false, as HandlePodCleanups
 * reads it): a pod with a running container or a ready sandbox. A pod with only exited containers
 * and stopped sandboxes is left to garbage collection, not to the orphan kill.
 */
import type { RelistPod } from './relist.js';

/** The uids of the relist's running pods, sorted (a relist is sorted by uid already). */
export function runningPodUids(pods: readonly RelistPod[]): string[] {
  return pods
    .filter((p) => p.containers.some((c) => c.state === 'running') || p.sandboxes.some((s) => s.state === 'ready'))
    .map((p) => p.uid)
    .sort();
}

export function sameUids(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((uid, i) => uid === b[i]);
}
