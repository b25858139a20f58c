import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePodVolumeDirectory, setUpEmptyDir, setUpMemoryDir } from '../../../src/adapters/volumes/empty-dir.js';
import { isMountPoint, systemMounter } from '../../../src/adapters/volumes/mount-table.js';
import { mountInfoLine, mountPointsUnder, needsRoot, notRoot, tempRoot, unmountAndRemove } from './mount-helpers.js';

const mounter = systemMounter();
const modeOf = async (p: string) => (await stat(p)).mode & 0o7777;

let root: string | undefined;
let dir: string;
const target = () => ({ dir, podDir: join(root!, 'pods/u1') });
beforeEach(async () => {
  root = await tempRoot('klt-empty-dir-');
  dir = join(root, 'pods/u1/volumes/kubernetes.io~empty-dir/cache');
});
afterEach(async () => {
  await unmountAndRemove(root);
  root = undefined;
});

describe('makePodVolumeDirectory', () => {
  it('makes the directory and its parents with exactly the mode, whatever the umask', async () => {
    const previous = process.umask(0o077);
    try {
      await makePodVolumeDirectory(target(), 0o777);
    } finally {
      process.umask(previous);
    }
    expect(await modeOf(dir)).toBe(0o777);
  });
});

describe('setUpEmptyDir', () => {
  it('makes a world-writable directory on disk for the default medium', async () => {
    await setUpEmptyDir(mounter, target(), {});
    expect(await modeOf(dir)).toBe(0o777);
    expect(await mountPointsUnder(root!)).toEqual([]);
  });

  it.skipIf(notRoot)('gives the directory and what is in it the pod\'s fsGroup: group read-write, directories setgid', async () => {
    await setUpEmptyDir(mounter, target(), {});
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'f'), 'x', { mode: 0o600 });
    await setUpEmptyDir(mounter, target(), {}, 4321);
    for (const p of [dir, join(dir, 'sub'), join(dir, 'sub', 'f')]) expect((await stat(p)).gid).toBe(4321);
    expect(await modeOf(dir)).toBe(0o2777);
    expect(await modeOf(join(dir, 'sub')) & 0o2070).toBe(0o2070);
    expect(await modeOf(join(dir, 'sub', 'f'))).toBe(0o660);
  });

  it('changes no mode or group outside the pod directory: a victim directory named as the volume is refused', async () => {
    const victim = join(root!, 'victim-vol');
    await mkdir(victim, { mode: 0o700 });
    await chmod(victim, 0o700);
    await writeFile(join(victim, 'file'), 'x', { mode: 0o644 });
    const before = await stat(victim);
    const failure = setUpEmptyDir(mounter, { dir: victim, podDir: join(root!, 'pods/u1') }, {}, 4242);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(failure).rejects.toThrow(`${victim} is not below the pod directory ${join(root!, 'pods/u1')}`);
    expect(await modeOf(victim)).toBe(0o700);
    expect((await stat(victim)).gid).toBe(before.gid);
    expect(await modeOf(join(victim, 'file'))).toBe(0o644);
  });

  it('changes no mode or group through a symlink in the pod directory that leads out of it', async () => {
    const decoy = join(root!, 'decoy');
    await mkdir(join(root!, 'pods/u1'), { recursive: true });
    await mkdir(decoy, { mode: 0o700 });
    await chmod(decoy, 0o700);
    await symlink(decoy, join(root!, 'pods/u1/volumes'));
    const failure = setUpEmptyDir(mounter, target(), {}, 4242);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(failure).rejects.toThrow(`(${join(decoy, 'kubernetes.io~empty-dir/cache')})`);
    expect(await modeOf(decoy)).toBe(0o700);
    expect(await modeOf(join(decoy, 'kubernetes.io~empty-dir/cache'))).not.toBe(0o777);
    expect(await readdir(join(decoy, 'kubernetes.io~empty-dir/cache'))).toEqual([]);
  });

  it('keeps the content of an existing directory on a second set-up', async () => {
    await setUpEmptyDir(mounter, target(), { medium: '' });
    await writeFile(join(dir, 'kept'), 'data');
    await setUpEmptyDir(mounter, target(), { medium: '' });
    expect(await readFile(join(dir, 'kept'), 'utf8')).toBe('data');
  });

  it('refuses the HugePages medium with KLT_ERR_VOLUME_MOUNT and makes nothing', async () => {
    const failure = setUpEmptyDir(mounter, target(), { medium: 'HugePages' });
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow('emptyDir medium "HugePages" is not supported by kubelet-ts');
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.skipIf(notRoot)(`mounts a tmpfs sized by sizeLimit in bytes for medium Memory (${needsRoot})`, async () => {
    await setUpEmptyDir(mounter, target(), { medium: 'Memory', sizeLimit: '1Mi' });
    expect(await mountPointsUnder(root!)).toEqual([dir]);
    const line = await mountInfoLine(dir);
    expect(line).toMatch(/ - tmpfs tmpfs /);
    expect(line).toMatch(/[ ,]size=1024k(,|$)/);
    expect(await modeOf(dir)).toBe(0o1777);
    expect(await isMountPoint(dir)).toBe(true);
  });

  it.skipIf(notRoot)(`gives a tmpfs volume and the directory below it Go's modes and owners, with and without an fsGroup (${needsRoot})`, async () => {
    await setUpEmptyDir(mounter, target(), { medium: 'Memory' });
    expect(await modeOf(dir)).toBe(0o1777);
    expect(await stat(dir)).toMatchObject({ uid: 0, gid: 0 });
    await unmountAndRemove(dir);

    await setUpEmptyDir(mounter, target(), { medium: 'Memory' }, 4321);
    expect(await modeOf(dir)).toBe(0o3777);
    expect(await stat(dir)).toMatchObject({ uid: 0, gid: 4321 });
    // The directory under the tmpfs was chmodded before the mount, as Go's setupDir, so it is 0777 too.
    await mounter.unmount(dir);
    expect(await modeOf(dir)).toBe(0o777);
  });

  it.skipIf(notRoot)(`keeps the tmpfs root's setgid and sticky bits on a second set-up with the fsGroup (${needsRoot})`, async () => {
    await setUpEmptyDir(mounter, target(), { medium: 'Memory' }, 4321);
    await setUpEmptyDir(mounter, target(), { medium: 'Memory' }, 4321);
    expect(await modeOf(dir)).toBe(0o3777);
    expect(await mountPointsUnder(root!)).toEqual([dir]);
  });

  it.skipIf(notRoot)(`refuses a file larger than the sizeLimit with ENOSPC (${needsRoot})`, async () => {
    await setUpEmptyDir(mounter, target(), { medium: 'Memory', sizeLimit: '1Mi' });
    await writeFile(join(dir, 'small'), Buffer.alloc(512 * 1024));
    await expect(writeFile(join(dir, 'big'), Buffer.alloc(2 * 1024 * 1024))).rejects.toMatchObject({ code: 'ENOSPC' });
  });

  it.skipIf(notRoot)(`keeps the mounted tmpfs and its content on a second set-up (${needsRoot})`, async () => {
    await setUpEmptyDir(mounter, target(), { medium: 'Memory', sizeLimit: '1Mi' });
    await writeFile(join(dir, 'kept'), 'in memory');
    await setUpEmptyDir(mounter, target(), { medium: 'Memory', sizeLimit: '1Mi' });
    expect(await mountPointsUnder(root!)).toEqual([dir]);
    expect(await readFile(join(dir, 'kept'), 'utf8')).toBe('in memory');
  });

  it.skipIf(notRoot)(`changes nothing on a tmpfs mounted already, as Go finds the volume set up (${needsRoot})`, async () => {
    await setUpMemoryDir(mounter, target());
    await chmod(dir, 0o750);
    await setUpMemoryDir(mounter, target());
    expect(await modeOf(dir)).toBe(0o750);
    expect(await mountPointsUnder(root!)).toEqual([dir]);
  });

  it.skipIf(notRoot)(`refuses a tmpfs mounted already that a symlink in the pod directory leads out to (${needsRoot})`, async () => {
    const decoy = join(root!, 'decoy');
    await mkdir(join(decoy, 'kubernetes.io~empty-dir/cache'), { recursive: true });
    await mounter.mountTmpfs(join(decoy, 'kubernetes.io~empty-dir/cache'), { mode: 0o700 });
    await mkdir(join(root!, 'pods/u1'), { recursive: true });
    await symlink(decoy, join(root!, 'pods/u1/volumes'));
    await expect(setUpMemoryDir(mounter, target())).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    expect(await modeOf(join(decoy, 'kubernetes.io~empty-dir/cache'))).toBe(0o700);
  });

  it.skipIf(notRoot)(`mounts a tmpfs on a directory that exists without one (${needsRoot})`, async () => {
    await mkdir(dir, { recursive: true });
    await setUpEmptyDir(mounter, target(), { medium: 'Memory' });
    expect(await mountPointsUnder(root!)).toEqual([dir]);
    expect(await modeOf(dir)).toBe(0o1777);
  });

  it.skipIf(notRoot)(`mounts a tmpfs of the kernel's default size without a sizeLimit (${needsRoot})`, async () => {
    await setUpEmptyDir(mounter, target(), { medium: 'Memory' });
    expect(await mountPointsUnder(root!)).toEqual([dir]);
    expect(await mountInfoLine(dir)).toMatch(/ - tmpfs tmpfs /);
  });
});

describe('setUpMemoryDir', () => {
  it.skipIf(notRoot)(`mounts a world-writable tmpfs whose root keeps the sticky bit (${needsRoot})`, async () => {
    await setUpMemoryDir(mounter, target());
    expect(await mountInfoLine(dir)).toMatch(/ - tmpfs tmpfs /);
    expect(await modeOf(dir)).toBe(0o1777);
  });
});

describe('isMountPoint', () => {
  it('answers false for a plain directory, with or without a trailing slash', async () => {
    await mkdir(dir, { recursive: true });
    expect(await isMountPoint(dir)).toBe(false);
    expect(await isMountPoint(`${dir}/`)).toBe(false);
  });

  it.skipIf(notRoot)(`answers true for a mount point, with or without a trailing slash (${needsRoot})`, async () => {
    await setUpMemoryDir(mounter, target());
    expect(await isMountPoint(`${dir}/`)).toBe(true);
    expect(await isMountPoint(join(root!, 'pods'))).toBe(false);
  });
});
