/**
 * SetVolumeOwnership (Go: pkg/volume/volume_linux.go) over a volume's tree: every entry gets the
 * pod's fsGroup and the group modes of domain/volumes/fs-group-modes.ts, symlinks only chowned.
 * With `fsGroupChangePolicy: OnRootMismatch`, a root that already has the group and modes is not
 * walked (a large volume keeps its start-up fast, as in Go).
 */
import { chmod, lchown, lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fsGroupMode, skipsOwnershipChange } from '../../domain/volumes/fs-group-modes.js';

export interface OwnershipOptions {
  readOnly: boolean;
  /** The pod's securityContext.fsGroupChangePolicy. */
  policy?: string;
}

async function walk(path: string, fsGroup: number, readOnly: boolean): Promise<void> {
  const info = await lstat(path);
  await lchown(path, -1, fsGroup);
  if (info.isSymbolicLink()) return;
  const kind = info.isDirectory() ? 'directory' : 'file';
  await chmod(path, fsGroupMode(info.mode & 0o7777, kind, readOnly));
  if (kind === 'directory') for (const name of await readdir(path)) await walk(join(path, name), fsGroup, readOnly);
}

/** Applies the fsGroup to `dir` and below; answers whether the tree was walked. */
export async function setVolumeOwnership(dir: string, fsGroup: number, opts: OwnershipOptions): Promise<boolean> {
  const root = await stat(dir);
  if (skipsOwnershipChange(opts.policy, { gid: root.gid, mode: root.mode & 0o7777, isDirectory: root.isDirectory() }, fsGroup, opts.readOnly)) return false;
  await walk(dir, fsGroup, opts.readOnly);
  return true;
}
