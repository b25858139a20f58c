/**
 * The node's mount table and the two mount operations the volume plugins need (a tmpfs for
 * memory-backed volumes, and unmounting it), through util-linux's mount(8)/umount(8) as the Go
 * kubelet's mount-utils does, run by a helper shell (mount-helper.ts says why). Mount points are
 * read from /proc/self/mountinfo (adapters/host/mount-info.ts).
 *
 * Tmpfs mounts asked for while one is under way wait for it and then go together, in one
 * `mount --all --fstab` (coalesced-calls.ts). A mount(8) costs about the same CPU whatever it
 * mounts, most of it loading and parsing, so a burst of pods each with a Secret and a
 * `kube-api-access` volume costs far less as one table than as a mount(8) per volume
 * (docs/FINDINGS.md).
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { KubeletError } from '../../domain/errors.js';
import { escapeOctal, isSameOrBelow, parseMountInfo } from '../host/mount-info.js';
import { coalescedCalls, type ItemOutcome } from './coalesced-calls.js';
import { createMountHelper, MountCommandError, type MountCommand, type MountHelper } from './mount-helper.js';

const run = promisify(execFile);

export interface Mounter {
  /** Every mount point, as absolute paths. */
  mountPoints(): Promise<string[]>;
  mountTmpfs(dir: string, opts: { sizeBytes?: number; mode?: number }): Promise<void>;
  unmount(dir: string): Promise<void>;
  /**
   * Bind-mounts `source` on `target` (a local PV); `options` (ro, the PV's mountOptions) are applied
   * by a remount of the bind, as Go's mounter does for a bind with options.
   */
  bindMount?(source: string, target: string, options: readonly string[]): Promise<void>;
  /** Stops what the mounter keeps running (its helper shell). */
  close?(): void;
}

/** Every mount point in mountinfo text, in table order. */
export function mountPoints(text: string): string[] {
  return parseMountInfo(text).map((e) => e.mountPoint);
}

/** The mount points at or below `dir`. */
export function mountsUnder(points: readonly string[], dir: string): string[] {
  const base = dir.replace(/\/+$/, '') || '/';
  return points.filter((p) => isSameOrBelow(p, base));
}

/**
 * Whether `dir` is a mount point of a file system of its own (a tmpfs the kubelet mounted): its
 * device differs from its parent's. Two stats, rather than reading the whole mount table, which
 * grows with every pod's mounts (a bind mount within one file system is not seen: none is made here).
 * They run on the caller's thread: every set-up of a memory-backed volume asks, the two entries are
 * in the kernel's cache, and two trips through the thread pool cost the event loop more.
 */
export async function isMountPoint(dir: string): Promise<boolean> {
  const path = dir.replace(/\/+$/, '');
  return statSync(path).dev !== statSync(dirname(path)).dev;
}

interface TmpfsMount { dir: string; options: string }

/** fstab(5)'s line for a tmpfs mount. */
export function tmpfsTableLine(mount: TmpfsMount): string {
  return `tmpfs ${escapeOctal(mount.dir)} tmpfs ${mount.options} 0 0`;
}

/**
 * The mounts, in one call when there are several. mount(8)'s table mode tells which line failed
 * only in its words, so after a failed call whatever is not mounted is mounted again alone, for an
 * error of its own. (Table mode skips a line whose tmpfs is mounted there already; the emptyDir
 * set-up asks only for a directory that is no mount point, so nothing is skipped that `-t` would mount.)
 */
async function mountTmpfsAll(helper: MountHelper, mounts: readonly TmpfsMount[]): Promise<ItemOutcome[]> {
  const alone = (m: TmpfsMount): Promise<ItemOutcome> =>
    runMountWith(helper, 'mount', ['-t', 'tmpfs', '-o', m.options, 'tmpfs', m.dir], `mount of tmpfs on ${m.dir} failed`).then(() => undefined, (error: Error) => error);
  const lines = mounts.map(tmpfsTableLine);
  if (mounts.length === 1 || !helper.canCarry(lines)) return Promise.all(mounts.map(alone));
  try {
    await helper.mountTable(lines);
    return mounts.map(() => undefined);
  } catch {
    return Promise.all(mounts.map(async (m) => ((await isMountPoint(m.dir).catch(() => false)) ? undefined : alone(m))));
  }
}

/** Runs mount(8) or umount(8) through the helper shell, or spawned when the helper cannot carry the arguments. */
async function runMountWith(helper: MountHelper, command: MountCommand, args: string[], what: string): Promise<void> {
  try {
    if (helper.canCarry(args)) await helper.run(command, args);
    else await run(command, args);
  } catch (error) {
    const output = error instanceof MountCommandError ? error.output : (error as { stderr?: string }).stderr?.trim();
    throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `${what}: ${output || (error as Error).message}`, { cause: error });
  }
}

export function systemMounter(mountInfoPath = '/proc/self/mountinfo', helper: MountHelper = createMountHelper()): Mounter {
  const runMount = (command: MountCommand, args: string[], what: string) => runMountWith(helper, command, args, what);
  const mountTmpfs = coalescedCalls((mounts: readonly TmpfsMount[]) => mountTmpfsAll(helper, mounts));
  return {
    mountPoints: async () => mountPoints(await readFile(mountInfoPath, 'utf8')),
    mountTmpfs: (dir, opts) => {
      const options = [...(opts.mode !== undefined ? [`mode=${opts.mode.toString(8).padStart(4, '0')}`] : []), ...(opts.sizeBytes !== undefined ? [`size=${opts.sizeBytes}`] : [])];
      // Without a mode the tmpfs root has the kernel's 1777; `defaults` keeps the table's fields in place.
      return mountTmpfs({ dir, options: options.length > 0 ? options.join(',') : 'defaults' });
    },
    unmount: (dir) => runMount('umount', [dir], `unmount of ${dir} failed`),
    bindMount: async (source, target, options) => {
      await runMount('mount', ['--bind', source, target], `bind mount of ${source} on ${target} failed`);
      if (options.length > 0) await runMount('mount', ['-o', ['bind', 'remount', ...options].join(','), target], `remount of ${target} with ${options.join(',')} failed`);
    },
    close: () => helper.close(),
  };
}
