/**
 * What one rotation of a container's log does, decided from the files beside it (Go's
 * containerLogManager.rotateLog): the live log `<path>` is renamed `<path>.<YYYYMMDD-HHMMSS>` and the
 * runtime reopens `<path>`; the newest rotated file stays plain (the runtime may still be finishing a
 * write to it and a log shipper reading it), older ones are gzip-compressed to `<file>.gz`, and at
 * most `maxFiles` files are left counting the live one.
 *
 * Before that, leftovers of an interrupted rotation go: `.tmp` files (a compression cut short) and a
 * plain file whose `.gz` exists (compressed, not yet removed). Then the oldest rotated files go until
 * `maxFiles - 2` are left: with the one about to be rotated and the new live file, that is `maxFiles`.
 * Oldest first, as Go removes them, so a reader of the oldest loses it first.
 *
 * Names sort by their timestamp suffix; the suffix is in UTC (Go formats the node's local time, the
 * same thing on a node kept in UTC, and a local clock's DST step would unsort Go's names).
 */

export const COMPRESSED_SUFFIX = '.gz';
export const TEMPORARY_SUFFIX = '.tmp';

export interface LogRotationPlan {
  /** Removed first, in this order: leftovers, then the oldest rotated files beyond the limit. */
  remove: string[];
  /** Rotated files still plain, compressed next, each to `<file>.gz`. */
  compress: string[];
  /** The name the live log is renamed to, before the runtime is asked to reopen it. */
  rotateTo: string;
}

/** Go's isInUse: temporary files are not; compressed ones are; a plain one whose `.gz` exists is not. */
function isInUse(file: string, all: ReadonlySet<string>): boolean {
  if (file.endsWith(TEMPORARY_SUFFIX)) return false;
  if (file.endsWith(COMPRESSED_SUFFIX)) return true;
  return !all.has(file + COMPRESSED_SUFFIX);
}

/** The rotated files worth keeping (in use), oldest first; Go's GetAllLogs without the live one. */
export function rotatedLogsInUse(siblings: readonly string[]): string[] {
  const all = new Set(siblings);
  return siblings.filter((f) => isInUse(f, all)).sort();
}

/** `20260102-150405` for the time `ms`, in UTC. */
export function rotationTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}-${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
}

/**
 * The plan for rotating `log` now. `siblings` are the files named `<log>.<anything>` (Go's glob
 * `<log>.*`), in any order; `maxFiles` is containerLogMaxFiles (validated > 1).
 */
export function planLogRotation(log: string, siblings: readonly string[], maxFiles: number, nowMs: number): LogRotationPlan {
  const all = new Set(siblings);
  const unused = siblings.filter((f) => !isInUse(f, all));
  const inUse = rotatedLogsInUse(siblings);
  const keep = Math.max(0, maxFiles - 2);
  const excess = inUse.slice(0, Math.max(0, inUse.length - keep));
  const kept = inUse.slice(excess.length);
  return {
    remove: [...unused, ...excess],
    compress: kept.filter((f) => !f.endsWith(COMPRESSED_SUFFIX)),
    rotateTo: `${log}.${rotationTimestamp(nowMs)}`,
  };
}
