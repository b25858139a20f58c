/**
 * The modes a volume's entries end with when the pod has an fsGroup (Go: pkg/volume/volume_linux.go,
 * SetVolumeOwnership and changeFilePermission). Every entry is given the group; a file gains group
 * read (and write, on a writable volume), a directory gains the same plus group and owner search and
 * the setgid bit, so files made in it later inherit the group. A symlink keeps its mode (a chmod
 * would go through it). Bits are only added: a file's own mode is never narrowed.
 *
 * ConfigMap, Secret, downward API and projected volumes are read-only in this sense (their plugins'
 * GetAttributes say ReadOnly), so their files end as mode | 0440 and their directories as
 * mode | 02550.
 */
import type { Payload } from './sources.js';

export const setgidBit = 0o2000;
/** What a read-write volume's entries gain (Go's rwMask). */
export const fsGroupReadWriteMask = 0o660;
/** What a read-only volume's entries gain (Go's roMask). */
export const fsGroupReadOnlyMask = 0o440;
/** What a directory gains besides (Go's execMask). */
export const fsGroupSearchMask = 0o110;
/** The mode the atomic writer gives its data directories (Go's newTimestampDir: 0755, whatever the umask). */
export const dataDirectoryMode = 0o755;

export type VolumeEntryKind = 'file' | 'directory' | 'symlink';

/** changeFilePermission's chmod: the mode (permission, setuid/setgid/sticky bits) the entry ends with. */
export function fsGroupMode(mode: number, kind: VolumeEntryKind, readOnly: boolean): number {
  if (kind === 'symlink') return mode;
  const mask = readOnly ? fsGroupReadOnlyMask : fsGroupReadWriteMask;
  return kind === 'directory' ? mode | mask | fsGroupSearchMask | setgidBit : mode | mask;
}

export interface VolumeEntryMode {
  /** Relative to the data directory; `.` is the data directory itself. */
  path: string;
  kind: 'file' | 'directory';
  mode: number;
}

/**
 * Every entry the atomic writer makes for a payload (the data directory, each directory on the way
 * to a file, each file) with the mode it must end with: the payload's and the writer's modes, and
 * with an fsGroup what SetVolumeOwnership would make of them. Directories come first, parents
 * before children, so an adapter can apply them in order.
 */
export function volumeEntryModes(payload: Payload, opts: { fsGroup?: number; readOnly: boolean }): VolumeEntryMode[] {
  const owned = opts.fsGroup !== undefined;
  const directories = new Set<string>();
  for (const path of payload.keys()) {
    if (!path.includes('/')) continue;
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) directories.add(parts.slice(0, i).join('/'));
  }
  const dirMode = owned ? fsGroupMode(dataDirectoryMode, 'directory', opts.readOnly) : dataDirectoryMode;
  const entries: VolumeEntryMode[] = [{ path: '.', kind: 'directory', mode: dirMode }];
  for (const dir of [...directories].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1))) {
    entries.push({ path: dir, kind: 'directory', mode: dirMode });
  }
  for (const [path, file] of payload) {
    entries.push({ path, kind: 'file', mode: owned ? fsGroupMode(file.mode, 'file', opts.readOnly) : file.mode });
  }
  return entries;
}

/** A volume's root as stat(2) shows it, for fsGroupChangePolicy OnRootMismatch. */
export interface VolumeRootStat { gid: number; mode: number; isDirectory: boolean }

/**
 * Go's requiresPermissionChange: the root lacks the fsGroup, the group bits SetVolumeOwnership adds
 * (and, for a directory, the search bits and setgid). Only then is the tree walked under
 * OnRootMismatch.
 */
export function requiresPermissionChange(root: VolumeRootStat, fsGroup: number, readOnly: boolean): boolean {
  if (root.gid !== fsGroup) return true;
  const mask = readOnly ? fsGroupReadOnlyMask : fsGroupReadWriteMask;
  if (!root.isDirectory) return (root.mode & mask) !== mask;
  const wanted = mask | fsGroupSearchMask;
  return (root.mode & wanted) !== wanted || (root.mode & setgidBit) === 0;
}

/** skipPermissionChange: under `OnRootMismatch` a root that already has the group and its modes is left alone; `Always` (the default) walks. */
export function skipsOwnershipChange(policy: string | undefined, root: VolumeRootStat, fsGroup: number, readOnly: boolean): boolean {
  return policy === 'OnRootMismatch' && !requiresPermissionChange(root, fsGroup, readOnly);
}
