/**
 * Container log files over node:fs (the ContainerLogFiles port): sizes, the rotated files beside a
 * log, renames, removals, gzip, and the legacy links.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { readdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ContainerLogFiles } from '../../ports/container-logs.js';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

export const containerLogFiles: ContainerLogFiles = {
  // On the caller's thread: a stat costs a few microseconds there, ten times more through the thread
  // pool, and it is asked at every container start and every rotation pass.
  async size(path) {
    try {
      return statSync(path).size;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  },
  async siblings(path) {
    const prefix = `${basename(path)}.`;
    const names = await readdir(dirname(path)).catch((err: unknown) => (isMissing(err) ? [] : Promise.reject(err)));
    return names.filter((n) => n.startsWith(prefix)).map((n) => join(dirname(path), n));
  },
  remove: (path) => rm(path, { force: true }),
  rename: (from, to) => rename(from, to),
  async compress(path) {
    // The temporary file takes the log's mode, and goes whatever happens; the plain file goes only once the .gz is in place.
    const tmp = `${path}.tmp`;
    const { mode } = await stat(path);
    try {
      await pipeline(createReadStream(path), createGzip(), createWriteStream(tmp, { mode: mode & 0o777 }));
      await rename(tmp, `${path}.gz`);
    } finally {
      await rm(tmp, { force: true });
    }
    await rm(path, { force: true });
  },
  symlink: (target, link) => symlink(target, link),
};
