/**
 * Writing a small file of the kubelet's own below a pod's directory (its hosts file, a termination
 * message file) with one trip through the thread pool: the open, which may create the file on disk
 * and costs as much either way. The write of a few KB into the page cache, the fchmod and the close
 * are made on the caller's thread, where each costs a few microseconds against tens through the pool.
 * The mode is set on the open file, not on its path: nothing swapped in meanwhile is changed.
 */
import { closeSync, fchmodSync, open, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const openFile = promisify(open);

export interface SmallFileMode {
  mode: number;
  /** A failed fchmod is ignored (the file stays usable with the mode the umask left). */
  chmodBestEffort?: boolean;
}

/** Truncates or creates `path`, writes `content` and sets its mode whatever the umask. */
export async function writeSmallFile(path: string, content: string, options: SmallFileMode): Promise<void> {
  const fd = await openFile(path, 'w', options.mode);
  try {
    if (content !== '') writeFileSync(fd, content);
    try {
      fchmodSync(fd, options.mode);
    } catch (err) {
      if (!options.chmodBestEffort) throw err;
    }
  } finally {
    closeSync(fd);
  }
}
