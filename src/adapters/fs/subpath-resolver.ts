/**
 * Where on the node a volume mount with a subPath points (Go: kubelet_pods.go makeMounts,
 * volume/util/subpath/subpath_linux.go SafeMakeDir, doSafeMakeDir, findExistingPrefix,
 * doBindSubPath, safeOpenSubPath; mount-utils PathWithinBase).
 *
 * The subPath is taken as given by domain/runtime/subpath.ts (relative, no `..`), but the volume's
 * content belongs to the pod, and a symlink in it may point anywhere on the node. So:
 * 1. a missing subPath is created as a directory inside the volume, with the volume directory's
 *    mode, one element at a time, never following a symlink out of the volume (doSafeMakeDir);
 * 2. the subPath is resolved (all symlinks) and must stay inside the resolved volume; a symlink
 *    that stays inside is fine.
 *
 * Where we differ from Go, and what it costs:
 * - Go walks with file descriptors (openat with O_NOFOLLOW, mkdirat), then bind-mounts the opened
 *   descriptor (/proc/<pid>/fd/<n>) onto `<podDir>/volume-subpaths/<volume>/<container>/<index>`
 *   and hands the runtime that bind target, so nothing the pod changes after the check can redirect
 *   the runtime's mount. Node has neither openat nor mount(2): we walk by path (checking each
 *   created element with lstat and realpath right after making it) and hand the runtime the
 *   resolved path itself. A container of the pod that swaps an element of that path for a symlink
 *   between our check and the runtime's bind mount can make the runtime mount a node path it
 *   chose (the TOCTOU Go closes with the bind). There is no cleanup to do, since we mount nothing.
 */
import { chmod, lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { KubeletError } from '../../domain/errors.js';

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

/** mount-utils PathWithinBase: `path` is `base` or under it (both already clean and absolute). */
export function isPathWithinBase(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`);
}

/** A refusal whose detail is ours; the message the pod sees is Go's terse one, set by the caller. */
class SubPathRefused extends Error {}

/**
 * Makes `subdir` (relative) inside `base`, each missing element with `mode`, refusing to follow a
 * symlink out of `base`. An existing directory is fine; an existing non-directory is ENOTDIR.
 */
export async function safeMakeDir(subdir: string, base: string, mode: number): Promise<void> {
  const realBase = await realpath(base);
  const target = join(realBase, subdir);
  if (!isPathWithinBase(target, realBase)) throw new SubPathRefused(`path ${target} is outside of allowed base ${realBase}`);
  const existing = await stat(target).catch((err: unknown) => {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (existing) {
    if (existing.isDirectory()) return;
    throw Object.assign(new Error(`mkdir ${target}: not a directory`), { code: 'ENOTDIR' });
  }

  // The longest prefix that exists (following symlinks, as Go's openat without O_NOFOLLOW), and
  // the elements still to make.
  const elements = relative(realBase, target).split(sep);
  let prefix = realBase;
  let firstMissing = 0;
  for (; firstMissing < elements.length; firstMissing++) {
    const next = join(prefix, elements[firstMissing]!);
    if (!(await exists(next))) break;
    prefix = next;
  }
  const realPrefix = await realpath(prefix);
  if (!isPathWithinBase(realPrefix, realBase)) throw new SubPathRefused(`path ${realPrefix} is outside of allowed base ${realBase}`);

  let current = realPrefix;
  for (const element of elements.slice(firstMissing)) {
    current = join(current, element);
    // Wrapped without its code: something that appeared here meanwhile (or a dangling symlink,
    // which stat took for missing) is a failure, not "already exists" (Go wraps it the same way).
    await mkdir(current, { mode }).catch((err: unknown) => {
      throw new SubPathRefused(`cannot create directory ${current}: ${(err as Error).message}`, { cause: err });
    });
    // What we just made must still be our directory, not something swapped in for it.
    const made = await lstat(current);
    if (!made.isDirectory() || !isPathWithinBase(await realpath(current), realBase)) {
      throw new SubPathRefused(`unexpected symlink found ${current}`);
    }
    // mkdir's mode went through the umask; the container must get the volume's own mode.
    await chmod(current, mode);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return false;
    throw err;
  }
}

export interface SubPathMount {
  /** The volume's directory on the node. */
  volumePath: string;
  /** Relative, without `..` (domain/runtime/subpath.ts containerSubPath). */
  subPath: string;
  /** For the error texts. */
  volumeMountName: string;
  containerName: string;
}

/**
 * The node path to bind-mount for a subPath mount, after making a missing subPath and checking it
 * resolves inside the volume. Failures are KLT_ERR_CONTAINER_CONFIG with Go's texts, which name
 * neither node path (Go keeps the host's layout out of what the pod's user sees); the detail is the
 * cause.
 */
export async function resolveSubPath(mount: SubPathMount): Promise<string> {
  const { volumePath, subPath, volumeMountName, containerName } = mount;
  const hostPath = join(volumePath, subPath);

  // Go: when it cannot tell whether the path exists it logs and does not try to make it.
  if (!(await exists(hostPath).catch(() => true))) {
    try {
      const { mode } = await stat(volumePath);
      await safeMakeDir(subPath, volumePath, mode & 0o7777);
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') {
        throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `failed to create subPath directory for volumeMount ${JSON.stringify(volumeMountName)} of container ${JSON.stringify(containerName)}`, { cause: err });
      }
    }
  }

  try {
    const realVolume = await realpath(volumePath);
    const realTarget = await realpath(hostPath);
    if (!isPathWithinBase(realTarget, realVolume)) throw new SubPathRefused(`subpath ${JSON.stringify(realTarget)} not within volume path ${JSON.stringify(realVolume)}`);
    return realTarget;
  } catch (err) {
    throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `failed to prepare subPath for volumeMount ${JSON.stringify(volumeMountName)} of container ${JSON.stringify(containerName)}`, { cause: err });
  }
}
