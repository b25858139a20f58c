/**
 * Deleting a directory tree without ever leaving it (Go: mount-utils RemoveAllOneFilesystem): each
 * entry is looked at with lstat, so a symlink is unlinked and never followed, and a directory on
 * another device (something mounted there, which the mount table may not name: a mount made in
 * another namespace, say) stops the removal before anything below it is touched.
 */
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

async function lstatOrMissing(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw err;
  }
}

const mountPointError = (dir: string) => new KubeletError('KLT_ERR_VOLUME_MOUNT', `cannot delete directory ${dir}: it is a mount point`);

async function removeDirectory(dir: string, device: number): Promise<void> {
  for (const name of await readdir(dir)) {
    const child = join(dir, name);
    const info = await lstatOrMissing(child);
    if (info === undefined) continue;
    if (!info.isDirectory()) {
      await unlink(child);
      continue;
    }
    if (info.dev !== device) throw mountPointError(child);
    await removeDirectory(child, device);
  }
  await rmdir(dir);
}

/** Removes `path` and everything below it on its own file system; a missing path is fine. */
export async function removeAllOneFilesystem(path: string): Promise<void> {
  const info = await lstatOrMissing(path);
  if (info === undefined) return;
  if (!info.isDirectory()) {
    await unlink(path);
    return;
  }
  const parent = await lstat(dirname(path));
  if (parent.dev !== info.dev) throw mountPointError(path);
  await removeDirectory(path, info.dev);
}
