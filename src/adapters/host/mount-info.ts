/**
 * The kernel's mount table as /proc/self/mountinfo gives it (proc(5)): where each mount is, its file
 * system type and how it propagates. The embedded runtime's mount planner asks it which mount a path
 * lies on (for HostToContainer: is the host path's mount shared or a slave?) and which mounts lie
 * below a directory an overlay will cover (they must be bound back on top of it); the volume plugins
 * ask it what is mounted under a pod's directory before they delete anything.
 */

export type MountPropagationKind = 'shared' | 'slave' | 'private' | 'unbindable';

export interface MountEntry {
  mountPoint: string;
  fsType: string;
  propagation: MountPropagationKind;
}

/**
 * One mountinfo line: `id parent major:minor root mountpoint options [optional fields…] - fstype source superoptions`.
 * Optional fields `shared:N` (the mount is in peer group N) and `master:N` (it receives from group N)
 * may both be present; shared wins here, as it is what the caller asks about.
 */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (fields.length < 10 || separator < 0) continue;
    const optional = fields.slice(6, separator);
    const propagation: MountPropagationKind = optional.some((f) => f.startsWith('shared:')) ? 'shared'
      : optional.some((f) => f.startsWith('master:')) ? 'slave'
        : optional.includes('unbindable') ? 'unbindable' : 'private';
    entries.push({ mountPoint: unescapeOctal(fields[4]!), fsType: fields[separator + 1] ?? '', propagation });
  }
  return entries;
}

/**
 * The kernel's mountinfo and fstab(5) separate fields by spaces, so both write space, tab, newline
 * and backslash in a path as \040, \011, \012, \134: escapeOctal writes a field, unescapeOctal reads one.
 */
export function escapeOctal(field: string): string {
  return field.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function unescapeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function isSameOrBelow(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(`${dir}/`);
}

export class MountTable {
  constructor(readonly entries: readonly MountEntry[]) {}

  /**
   * The mount a (real, absolute) path lies on: the one at the longest mount point above it, the last
   * mounted when several are stacked there. Only a table without a root mount has no answer.
   */
  mountOf(path: string): MountEntry | undefined {
    let found: MountEntry | undefined;
    for (const entry of this.entries) {
      if (!isSameOrBelow(path, entry.mountPoint)) continue;
      if (!found || entry.mountPoint.length >= found.mountPoint.length) found = entry;
    }
    return found;
  }

  /** Whether something is mounted at `path` itself (a real, absolute path). */
  isMountPoint(path: string): boolean {
    return this.entries.some((e) => e.mountPoint === path);
  }

  /** Mount points strictly below `dir`. */
  mountPointsBelow(dir: string): string[] {
    return this.entries.map((e) => e.mountPoint).filter((m) => m !== dir && isSameOrBelow(m, dir));
  }
}
