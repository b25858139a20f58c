/**
 * hostPath (Go: pkg/volume/hostpath): the path itself is the volume; SetUp only checks it against
 * its `type`, creating it for the *OrCreate types (a directory 0755, an empty file 0644), with Go's
 * messages. An unset type checks nothing (the runtime then makes a missing path a directory).
 *
 * Whatever the type, a path with a `..` element is refused first, before anything is looked at or
 * made (Go's SetUp, ValidatePathNoBacksteps), inline or a PV's: the API server's validation refuses
 * one too, and this is the check that holds for an object that skipped it.
 */
import { lstat, mkdir, open, stat } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import { hasBackstep } from '../../domain/pod-config/local-paths.js';
import type { HostPathVolumeSource } from '../../domain/volumes/sources.js';

type Kind = 'directory' | 'file' | 'socket' | 'charDevice' | 'blockDevice' | 'other';

async function kindOf(path: string): Promise<Kind | undefined> {
  try {
    // Followed, as Go's os.Stat: a symlink to a directory is a directory.
    const s = await stat(path);
    if (s.isDirectory()) return 'directory';
    if (s.isFile()) return 'file';
    if (s.isSocket()) return 'socket';
    if (s.isCharacterDevice()) return 'charDevice';
    if (s.isBlockDevice()) return 'blockDevice';
    return 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      // A dangling symlink exists to Go's Exists() (an lstat) but is nothing it can use.
      return (await lstat(path).then(() => 'other' as const, () => undefined));
    }
    throw error;
  }
}

function typeCheckFailed(path: string, what: string): KubeletError {
  return new KubeletError('KLT_ERR_VOLUME_MOUNT', `hostPath type check failed: ${path} is not ${what}`);
}

const expected: Record<string, { kind: Kind; what: string }> = {
  DirectoryOrCreate: { kind: 'directory', what: 'a directory' },
  Directory: { kind: 'directory', what: 'a directory' },
  FileOrCreate: { kind: 'file', what: 'a file' },
  File: { kind: 'file', what: 'a file' },
  Socket: { kind: 'socket', what: 'a socket file' },
  CharDevice: { kind: 'charDevice', what: 'a character device' },
  BlockDevice: { kind: 'blockDevice', what: 'a block device' },
};

export async function checkHostPath(source: HostPathVolumeSource): Promise<void> {
  if (hasBackstep(source.path)) throw new KubeletError('KLT_ERR_PATH_UNSAFE', `invalid HostPath \`${source.path}\`: must not contain '..'`);
  const type = source.type ?? '';
  if (type === '') return;
  const want = expected[type];
  if (!want) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `${type} is an invalid volume type`);
  const path = source.path;
  let kind = await kindOf(path);
  if (kind === undefined && type === 'DirectoryOrCreate') {
    await mkdir(path, { recursive: true, mode: 0o755 });
    return;
  }
  if (kind === undefined && type === 'FileOrCreate') {
    await (await open(path, 'a', 0o644)).close();
    kind = 'file';
  }
  if (kind !== want.kind) throw typeCheckFailed(path, want.what);
}
