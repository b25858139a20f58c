/**
 * The resource managers' checkpoint files on the node's file system: written to a temporary file in
 * the same directory, synced, then renamed over the old one, so a crash leaves either file whole.
 *
 * Read only as a regular file within the file's size bound (bounded-input): a FIFO, a device or a
 * huge file in its place is refused with an error naming the file, instead of blocking or exhausting
 * memory.
 */
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import type { CheckpointFiles } from '../../ports/resource-managers.js';
import { readRegularFile } from '../bounded-input/read-regular-file.js';

export const checkpointFiles: CheckpointFiles = {
  async read(path, maxBytes) {
    try {
      return (await readRegularFile(path, maxBytes)).text;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new KubeletError('KLT_ERR_HOST_IO', `cannot read the state file ${path}: ${(err as Error).message}`, { cause: err });
    }
  },
  async write(path, text) {
    const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
    const file = await open(tmp, 'w', 0o644);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  },
};
