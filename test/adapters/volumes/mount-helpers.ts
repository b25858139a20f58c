/**
 * Real mounts for the volume adapter tests: fresh temp roots (their real paths, as the mount table
 * names them), bind mounts, and a clean-up that unmounts everything under a root before removing
 * it, so no test ever deletes through a mount.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mountsUnder, mountPoints } from '../../../src/adapters/volumes/mount-table.js';

const run = promisify(execFile);

export const notRoot = process.getuid?.() !== 0;
export const needsRoot = 'mount(8) needs root';

export async function tempRoot(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export async function mountPointsUnder(dir: string): Promise<string[]> {
  return mountsUnder(mountPoints(await readFile('/proc/self/mountinfo', 'utf8')), dir);
}

/** The whole /proc/self/mountinfo line of the last mount at `dir` (for its options). */
export async function mountInfoLine(dir: string): Promise<string | undefined> {
  const lines = (await readFile('/proc/self/mountinfo', 'utf8')).split('\n');
  return lines.filter((line) => mountPoints(line)[0] === dir).at(-1);
}

export async function bindMount(source: string, target: string): Promise<void> {
  await run('mount', ['--bind', source, target]);
}

export async function tmpfsMount(target: string): Promise<void> {
  await run('mount', ['-t', 'tmpfs', 'tmpfs', target]);
}

/** Unmounts everything at or below `dir` (deepest first), then removes it; refuses to remove through a mount. */
export async function unmountAndRemove(dir: string | undefined): Promise<void> {
  if (dir === undefined) return;
  for (let round = 0; round < 5; round++) {
    const points = await mountPointsUnder(dir);
    if (points.length === 0) break;
    for (const point of points.sort((a, b) => b.length - a.length)) await run('umount', [point]).catch(() => undefined);
  }
  const left = await mountPointsUnder(dir);
  if (left.length > 0) throw new Error(`test clean-up: still mounted under ${dir}: ${left.join(', ')}`);
  await rm(dir, { recursive: true, force: true });
}
