/**
 * The node's mount table and the two mount operations the volume plugins need (a tmpfs for
 * memory-backed volumes, and unmounting it), through util-linux's mount(8)/umount(8) as the Go
 * kubelet's mount-utils does, run by a helper shell (mount-helper.ts says why). Mount points are
 * read from /proc/self/mountinfo (adapters/host/mount-info.ts).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { KubeletError } from '../../domain/errors.js';
import { isSameOrBelow, parseMountInfo } from '../host/mount-info.js';
import { createMountHelper, MountCommandError, type MountCommand, type MountHelper } from './mount-helper.js';

const run = promisify(execFile);

export interface Mounter {
  /** Every mount point, as absolute paths. */
  mountPoints(): Promise<string[]>;
  mountTmpfs(dir: string, opts: { sizeBytes?: number; mode?: number }): Promise<void>;
  unmount(dir: string): Promise<void>;
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
  return {
    mountPoints: async () => mountPoints(await readFile(mountInfoPath, 'utf8')),
    mountTmpfs: async (dir, opts) => {
      const options = [`mode=${(opts.mode ?? 0o777).toString(8).padStart(4, '0')}`, ...(opts.sizeBytes !== undefined ? [`size=${opts.sizeBytes}`] : [])];
      await runMount('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', dir], `mount of tmpfs on ${dir} failed`);
    },
    unmount: (dir) => runMount('umount', [dir], `unmount of ${dir} failed`),
    close: () => helper.close(),
  };
}
