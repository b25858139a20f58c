/**
 * A pod's image pull back-off (Go's imagePuller back-off, kept per pod and image): each failed pull
 * of an image waits 10 s before the next, doubling to 300 s; a sync within that window does not
 * pull and fails with ImagePullBackOff. The pod worker keeps it from its syncs' results, so the
 * journal's replay covers it, and hands each sync the moment every image's window ends.
 */
import { isBackoffEntryExpired, nextBackoffEntry, type BackoffEntry, type BackoffPolicy } from './backoff.js';
import type { SyncStepOutcome } from '../pod/sync-outcome.js';

/** By image, as the container names it. */
export type ImagePullBackOffs = Readonly<Record<string, BackoffEntry>>;

/**
 * The back-offs after a sync: each pull it saw fail starts or doubles its image's back-off from when
 * it failed; entries untouched for 2 × maxMs are dropped (Go's GC).
 */
export function recordImagePullFailures(backOffs: ImagePullBackOffs, steps: readonly SyncStepOutcome[], policy: BackoffPolicy): ImagePullBackOffs {
  const failures = steps.flatMap((s) => (s.pullFailure ? [s.pullFailure] : []));
  if (failures.length === 0) return backOffs;
  const next: Record<string, BackoffEntry> = { ...backOffs };
  for (const { image, atMs } of failures) next[image] = nextBackoffEntry(policy, next[image], atMs);
  const latest = Math.max(...failures.map((f) => f.atMs));
  for (const [image, entry] of Object.entries(next)) if (isBackoffEntryExpired(policy, entry, latest)) delete next[image];
  return next;
}

/** When each image's back-off window ends, on the runtime manager's clock: what a sync is handed. */
export function imagePullBackOffEnds(backOffs: ImagePullBackOffs): Record<string, number> {
  return Object.fromEntries(Object.entries(backOffs).map(([image, e]) => [image, e.lastUpdateMs + e.backoffMs]));
}
