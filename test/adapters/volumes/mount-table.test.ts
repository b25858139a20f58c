import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMountHelper, type MountHelper } from '../../../src/adapters/volumes/mount-helper.js';
import { mountsUnder, mountPoints, systemMounter, tmpfsTableLine } from '../../../src/adapters/volumes/mount-table.js';
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

describe('tmpfsTableLine', () => {
  it('writes the directory as fstab(5) does, octal escapes for space, tab, newline and backslash', () => {
    expect(tmpfsTableLine({ dir: '/v/my vol\t1\n\\x', options: 'mode=0777,size=1048576' }))
      .toBe('tmpfs /v/my\\040vol\\0111\\012\\134x tmpfs mode=0777,size=1048576 0 0');
  });
});

/** The real helper, its calls counted: which went alone (`mount -t`) and which as a table. */
function countedHelper(): MountHelper & { alone: string[]; tables: number[] } {
  const real = createMountHelper();
  const alone: string[] = [];
  const tables: number[] = [];
  return {
    alone, tables, canCarry: real.canCarry, close: real.close,
    run: (command, args) => {
      alone.push(args.at(-1) ?? '');
      return real.run(command, args);
    },
    mountTable: (lines) => {
      tables.push(lines.length);
      return real.mountTable(lines);
    },
  };
}

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

  it.skipIf(notRoot)(`mounts a tmpfs without a mode or size by default: its root is the kernel's 1777 (${needsRoot})`, async () => {
    const dir = join(root!, 'vol');
    await mkdir(dir);
    await systemMounter().mountTmpfs(dir, {});
    expect((await stat(dir)).mode & 0o7777).toBe(0o1777);
    expect(await mountInfoLine(dir)).not.toMatch(/[ ,]size=/);
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

  it.skipIf(notRoot)(`mounts the tmpfs asked for while one is under way in one table, each with its options (${needsRoot})`, async () => {
    const helper = countedHelper();
    const mounter = systemMounter('/proc/self/mountinfo', helper);
    const dirs = Array.from({ length: 6 }, (_, i) => join(root!, `vol ${i}`));
    await Promise.all(dirs.map((d) => mkdir(d)));
    try {
      await Promise.all(dirs.map((d, i) => mounter.mountTmpfs(d, { mode: 0o750 + i, sizeBytes: (i + 1) * 1024 * 1024 })));
      expect(helper.alone).toEqual([dirs[0]]);
      expect(helper.tables).toEqual([5]);
      for (const [i, d] of dirs.entries()) {
        const line = await mountInfoLine(d);
        expect(line).toMatch(/ - tmpfs tmpfs /);
        expect(line).toMatch(new RegExp(`[ ,]size=${(i + 1) * 1024}k(,|$)`));
        expect((await stat(d)).mode & 0o7777).toBe(0o750 + i);
      }
    } finally {
      mounter.close?.();
    }
  });

  it.skipIf(notRoot)(`fails only the mount of a table that could not be made, with its own error, once each (${needsRoot})`, async () => {
    const helper = countedHelper();
    const mounter = systemMounter('/proc/self/mountinfo', helper);
    const [first, good, missing, other] = ['first', 'good', 'missing', 'other'].map((n) => join(root!, n));
    await Promise.all([first!, good!, other!].map((d) => mkdir(d)));
    try {
      const outcomes = await Promise.allSettled([first!, good!, missing!, other!].map((d) => mounter.mountTmpfs(d, {})));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toContain(`mount of tmpfs on ${missing!} failed: `);
      expect(helper.tables).toEqual([3]);
      // After the failed table only the missing directory was tried again: no tmpfs is mounted twice.
      expect(helper.alone).toEqual([first, missing]);
      expect((await mounter.mountPoints()).filter((p) => p.startsWith(`${root!}/`)).sort()).toEqual([first, good, other].sort());
    } finally {
      mounter.close?.();
    }
  });
});
