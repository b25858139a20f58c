/**
 * The last check before the kubelet changes a mode or an owner, mounts or writes volume content:
 * the path must lie strictly below the pod's directory, as written and once every symlink on the way
 * is resolved. Paths are built to be there (domain/pod/pod-paths.ts); this holds when one is not,
 * or when something on the way was swapped for a link to elsewhere on the node.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { isBelowPath } from '../../domain/pod/pod-paths.js';

/** A volume's directory and the pod directory it must stay in. */
export interface PodVolumeTarget {
  dir: string;
  podDir: string;
}

const refused = (path: string, podDir: string, detail = '') =>
  new KubeletError('KLT_ERR_PATH_UNSAFE', `${path}${detail} is not below the pod directory ${podDir}: the kubelet changes nothing there`);

/**
 * Every symlink resolved by the C library's realpath(3), as the thread pool's realpath does, but on
 * the caller's thread: the check runs on every set-up of every volume, its paths are the pod's
 * directories the kernel has just looked up, and a trip through the thread pool cost the event
 * loop far more than the lookups themselves.
 */
const realpath = (path: string) => realpathSync.native(path);

/** Where `path` really is: every symlink resolved; a path not made yet is its parent's real place and its name. */
function realLocation(path: string): string {
  try {
    return realpath(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return join(realpath(dirname(path)), basename(path));
  }
}

/** KLT_ERR_PATH_UNSAFE unless `target.dir` (or a file, made or about to be) is below `target.podDir`, symlinks resolved. */
export async function assertBelowPodDirectory(target: PodVolumeTarget): Promise<void> {
  const { dir, podDir } = target;
  if (!isBelowPath(dir, podDir)) throw refused(dir, podDir);
  const realDir = realLocation(dir);
  const realPodDir = realpath(podDir);
  if (!isBelowPath(realDir, realPodDir)) throw refused(dir, podDir, ` (${realDir})`);
}
