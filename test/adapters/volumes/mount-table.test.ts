import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mountsUnder, mountPoints, systemMounter } from '../../../src/adapters/volumes/mount-table.js';
import { mountInfoLine, needsRoot, notRoot, tempRoot, unmountAndRemove } from './mount-helpers.js';

// Lines as the kernel writes them: space, tab, newline and backslash in a path are octal escapes.
const mountInfo = [
  '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
  '35 22 0:30 / /var/lib/kubelet/pods/u1/volumes/kubernetes.io~secret/my\\040token rw - tmpfs tmpfs rw,size=1024k',
  '36 22 0:31 / /mnt/tab\\011and\\012newline rw - tmpfs tmpfs rw',
  '37 22 0:32 / /mnt/back\\134slash rw - tmpfs tmpfs rw',
  '',
].join('\n');

describe('mountPoints', () => {
  it('answers the mount point of each line with octal escapes undone, skipping blank lines', () => {
    expect(mountPoints(mountInfo)).toEqual([
      '/',
      '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~secret/my token',
      '/mnt/tab\tand\nnewline',
      '/mnt/back\\slash',
    ]);
  });

  it('answers nothing for empty text', () => {
    expect(mountPoints('')).toEqual([]);
  });
});

describe('mountsUnder', () => {
  const points = ['/', '/a', '/a/b', '/a/b/c', '/a/bc', '/ab'];

  it('answers the mount points at or below a directory, not its siblings with a common prefix', () => {
    expect(mountsUnder(points, '/a/b')).toEqual(['/a/b', '/a/b/c']);
  });

  it('ignores trailing slashes on the directory', () => {
    expect(mountsUnder(points, '/a/b//')).toEqual(['/a/b', '/a/b/c']);
  });

  it('answers nothing when nothing is mounted there', () => {
    expect(mountsUnder(points, '/z')).toEqual([]);
  });
});

describe('systemMounter', () => {
  let root: string | undefined;
  beforeEach(async () => {
    root = await tempRoot('klt-mount-table-');
  });
  afterEach(async () => {
    await unmountAndRemove(root);
    root = undefined;
  });

  it('reads mount points from the mountinfo file it is given', async () => {
    const file = join(root!, 'mountinfo');
    await writeFile(file, mountInfo);
    expect(await systemMounter(file).mountPoints()).toContain('/mnt/back\\slash');
  });

  it.skipIf(notRoot)(`mounts a tmpfs with its mode and size, and unmounts it (${needsRoot})`, async () => {
    const dir = join(root!, 'vol');
    await mkdir(dir);
    const mounter = systemMounter();
    await mounter.mountTmpfs(dir, { mode: 0o750, sizeBytes: 1024 * 1024 });
    expect(await mounter.mountPoints()).toContain(dir);
    const line = await mountInfoLine(dir);
    expect(line).toMatch(/ - tmpfs tmpfs /);
    expect(line).toMatch(/[ ,]size=1024k(,|$)/);
    expect(line).toMatch(/[ ,]mode=750(,|$)/);
    expect((await stat(dir)).mode & 0o7777).toBe(0o750);
    await mounter.unmount(dir);
    expect(await mounter.mountPoints()).not.toContain(dir);
  });

  it.skipIf(notRoot)(`mounts a tmpfs world-writable without a size by default (${needsRoot})`, async () => {
    const dir = join(root!, 'vol');
    await mkdir(dir);
    await systemMounter().mountTmpfs(dir, {});
    expect((await stat(dir)).mode & 0o7777).toBe(0o777);
  });

  it.skipIf(notRoot)(`sees a mount point whose path has a space in it (${needsRoot})`, async () => {
    const dir = join(root!, 'my vol');
    await mkdir(dir);
    const mounter = systemMounter();
    await mounter.mountTmpfs(dir, {});
    expect(await mounter.mountPoints()).toContain(dir);
    await mounter.unmount(dir);
    expect(await mounter.mountPoints()).not.toContain(dir);
  });

  it.skipIf(notRoot)(`fails a tmpfs mount on a missing directory with KLT_ERR_VOLUME_MOUNT (${needsRoot})`, async () => {
    const dir = join(root!, 'missing');
    const failure = systemMounter().mountTmpfs(dir, {});
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow(`mount of tmpfs on ${dir} failed: `);
  });

  it.skipIf(notRoot)(`fails to unmount a directory that is not a mount point with KLT_ERR_VOLUME_MOUNT (${needsRoot})`, async () => {
    const failure = systemMounter().unmount(root!);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow(`unmount of ${root!} failed: `);
  });
});
