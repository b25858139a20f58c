/**
 * The resource managers' checkpoint files on the node's file system: written to a temporary file in
 * the same directory, synced, then renamed over the old one, so a crash leaves either file whole.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CheckpointFiles } from '../../ports/resource-managers.js';

export const checkpointFiles: CheckpointFiles = {
  async read(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
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
