/**
 * Container log files over node:fs (the ContainerLogFiles port): sizes, the rotated files beside a
 * log, renames, removals, gzip, and the legacy links.
 *
 * A pod can reach its own log directory (a hostPath onto it) and plant links there, so every
 * operation on a log or a rotated file works through the directory's descriptor (./log-directory.ts)
 * and on regular files only: a link is never measured, listed, renamed, renamed onto, compressed or
 * compressed onto (an error names it, or the listing leaves it out and says so), and the compressed
 * copy is created with O_EXCL|O_NOFOLLOW, so nothing planted at its name is ever written through.
 */
import { constants } from 'node:fs';
import { open, rename, rm, symlink, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { COMPRESSED_SUFFIX, TEMPORARY_SUFFIX } from '../../domain/runtime/container-log-rotation.js';
import { KubeletBug, KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { ContainerLogFiles } from '../../ports/container-logs.js';
import { inLogDirectory, notRegularFile, openRegularFile, type LogDirectory } from './log-directory.js';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** `name` in `dir` when it is a regular file; null when nothing is there; a link or anything else is refused. */
function regularOrNone(dir: LogDirectory, name: string): number | null {
  const st = dir.lstat(name);
  if (st === null) return null;
  if (!st.isFile()) throw notRegularFile(join(dir.path, name));
  return st.size;
}

const alreadyThere = (dir: LogDirectory, name: string) =>
  new KubeletError('KLT_ERR_PATH_UNSAFE', `${JSON.stringify(join(dir.path, name))} already exists: a compressed log is never written over it or through it`);

/** Creates `name` in `dir` for writing; anything already there (a link above all) is refused, never opened. */
async function createExclusive(dir: LogDirectory, name: string, mode: number): Promise<FileHandle> {
  try {
    return await open(dir.entry(name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ELOOP') throw alreadyThere(dir, name);
    throw err;
  }
}

async function compressIn(dir: LogDirectory, name: string): Promise<void> {
  const tmp = `${name}${TEMPORARY_SUFFIX}`;
  const gz = `${name}${COMPRESSED_SUFFIX}`;
  const source = await openRegularFile(dir, name);
  let created = false;
  try {
    if (dir.lstat(gz) !== null) throw alreadyThere(dir, gz);
    // The temporary file takes the log's mode and goes whatever happens, but only when made here.
    const out = await createExclusive(dir, tmp, (await source.stat()).mode & 0o777);
    created = true;
    await pipeline(source.createReadStream({ autoClose: false }), createGzip(), out.createWriteStream());
    // A rename replaces whatever is at the name without following it; looked at first so that a
    // link planted there is reported rather than silently replaced.
    if (dir.lstat(gz) !== null) throw alreadyThere(dir, gz);
    await rename(dir.entry(tmp), dir.entry(gz));
    created = false;
  } finally {
    await source.close();
    if (created) await rm(dir.entry(tmp), { force: true });
  }
  // The plain file goes only once the .gz is in place; unlink never follows a link.
  await unlink(dir.entry(name)).catch((err: unknown) => (isMissing(err) ? undefined : Promise.reject(err)));
}

/** The adapter; `logger` hears about what a listing or a removal leaves alone. */
export function createContainerLogFiles(logger: Logger): ContainerLogFiles {
  // Listing and removing, which a container's removal does, find nothing of the container's in a
  // directory that is missing or not safely reached (a link in its place): that must not keep the
  // container from being removed, and nothing is followed.
  const unlessUnsafe = <T>(err: unknown, path: string, nothing: T): T => {
    if (isMissing(err)) return nothing;
    if (!(err instanceof KubeletError && err.code === 'KLT_ERR_PATH_UNSAFE')) throw err;
    logger.info({ path, err }, 'Leaving alone a log directory that is not safely reached');
    return nothing;
  };
  return {
    async size(path) {
      try {
        return await inLogDirectory(path, regularOrNone);
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async siblings(path) {
      const prefix = `${basename(path)}.`;
      const entries = await inLogDirectory(path, (dir) => dir.list()).catch((err: unknown) => unlessUnsafe(err, path, []));
      const named = entries.filter((e) => e.name.startsWith(prefix));
      for (const e of named.filter((n) => !n.isFile())) {
        logger.info({ path: join(dirname(path), e.name) }, 'Skipping a log file that is not a regular file');
      }
      return named.filter((e) => e.isFile()).map((e) => join(dirname(path), e.name));
    },
    // A link at `path` is removed itself (unlink never follows one).
    remove: (path) => inLogDirectory(path, (dir, name) => rm(dir.entry(name), { force: true })).catch((err: unknown) => unlessUnsafe(err, path, undefined)),
    rename(from, to) {
      if (dirname(from) !== dirname(to)) return Promise.reject(new KubeletBug(`a log is renamed within its directory, not from ${from} to ${to}`));
      return inLogDirectory(from, async (dir, name) => {
        // Either missing is left to rename to report; a link at either name is refused.
        regularOrNone(dir, name);
        regularOrNone(dir, basename(to));
        await rename(dir.entry(name), dir.entry(basename(to)));
      });
    },
    compress: (path) => inLogDirectory(path, compressIn),
    removeLink: (link) => rm(link, { force: true }),
    symlink: (target, link) => symlink(target, link),
  };
}
