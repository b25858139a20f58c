/**
 * A container's log directory, opened so that nothing a pod planted in it is followed. A pod with a
 * hostPath onto its own log directory can put links there (or turn the directory into one), so:
 * - the directory is reached from the kubelet's pod log root one component at a time, each opened
 *   through its parent's descriptor without following a link (the root itself is the
 *   administrator's, and may be a link);
 * - every later operation names a file through the directory's descriptor (its /proc/self/fd entry,
 *   which the kernel resolves to the directory opened, whatever its path names by then): Node has no
 *   openat/renameat, and this is what they would give;
 * - a file is opened without following a link (and without blocking on a FIFO) and must be a regular
 *   file.
 * The root is the directory `POD_CONTROLLED_LEVELS` above the log's own: logs lie at
 * `<root>/<namespace>_<pod>_<uid>/<container>/<n>.log`, the layout the kubelet asks the runtime for.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, normalize } from 'node:path';
import { KubeletError } from '../../domain/errors.js';

/** The directories between the pod log root and a log a pod can reach: its pod's and its container's. */
export const POD_CONTROLLED_LEVELS = 2;

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

export const notRegularFile = (path: string) =>
  new KubeletError('KLT_ERR_PATH_UNSAFE', `${JSON.stringify(path)} is not a regular file (a symbolic link in a log directory is never followed)`);

const notDirectory = (path: string) =>
  new KubeletError('KLT_ERR_PATH_UNSAFE', `${JSON.stringify(path)} is not a directory (a symbolic link in a log directory is never followed)`);

export interface LogDirectory {
  readonly path: string;
  /** `name` (one component) in the directory opened, through its descriptor. */
  entry(name: string): string;
  /** Its entries, as they are now, with their types (a link is a link). */
  list(): Dirent[];
  /** The entry's own status (a link's, not its target's), or null when there is none. */
  lstat(name: string): Stats | null;
  close(): void;
}

const through = (fd: number, name?: string) => (name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`);

/**
 * Opens `dir` (a container's log directory) as described above. Synchronous: each step is an open of
 * a directory already in the dentry cache, cheaper on the caller's thread than through the pool.
 * A missing directory throws ENOENT as node:fs does; a link or a file in its place, KLT_ERR_PATH_UNSAFE.
 */
export function openLogDirectory(dir: string): LogDirectory {
  const path = normalize(dir);
  const below: string[] = [];
  let top = path;
  for (let i = 0; i < POD_CONTROLLED_LEVELS && dirname(top) !== top; i++) {
    below.unshift(basename(top));
    top = dirname(top);
  }
  let fd = openSync(top, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const name of below) {
      let next: number;
      try {
        next = openSync(through(fd, name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (err) {
        if (errno(err) === 'ENOTDIR' || errno(err) === 'ELOOP') throw notDirectory(path);
        throw err;
      }
      closeSync(fd);
      fd = next;
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  const opened = fd;
  return {
    path,
    entry: (name) => through(opened, name),
    list: () => readdirSync(through(opened), { withFileTypes: true }),
    lstat(name) {
      try {
        return lstatSync(through(opened, name));
      } catch (err) {
        if (errno(err) === 'ENOENT') return null;
        throw err;
      }
    },
    close: () => closeSync(opened),
  };
}

/** Runs `use` with the log directory of `file` open, and closes it after. */
export async function inLogDirectory<T>(file: string, use: (dir: LogDirectory, name: string) => Promise<T> | T): Promise<T> {
  const dir = openLogDirectory(dirname(file));
  try {
    return await use(dir, basename(file));
  } catch (err) {
    // node:fs names the path it was given: the directory's, rather than its descriptor's entry.
    if (err instanceof Error) err.message = err.message.replaceAll(dir.entry(''), `${dir.path}/`);
    throw err;
  } finally {
    dir.close();
  }
}

/** Opens `name` in `dir` for reading: a regular file only, never through a link, never blocked on a FIFO. */
export async function openRegularFile(dir: LogDirectory, name: string): Promise<FileHandle> {
  const shown = `${dir.path}/${name}`;
  let fh: FileHandle;
  try {
    fh = await open(dir.entry(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (errno(err) === 'ELOOP') throw notRegularFile(shown);
    throw err;
  }
  try {
    if (!(await fh.stat()).isFile()) throw notRegularFile(shown);
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** A container's log file opened for reading, as above: the directory's path and the file itself never followed through a link. */
export function openLogFile(file: string): Promise<FileHandle> {
  return inLogDirectory(file, openRegularFile);
}
