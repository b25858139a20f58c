import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { escapeOctal } from '../../../src/adapters/host/mount-info.js';
import { createMountHelper, MountCommandError, type MountHelper } from '../../../src/adapters/volumes/mount-helper.js';
import { mountPointsUnder, needsRoot, notRoot, tempRoot, unmountAndRemove } from './mount-helpers.js';

let helper: MountHelper;
let root: string | undefined;

beforeEach(async () => {
  helper = createMountHelper();
  root = await tempRoot('klt-mount-helper-');
});
afterEach(async () => {
  helper.close();
  await unmountAndRemove(root);
  root = undefined;
});

describe('createMountHelper', () => {
  it('answers a failed command with its exit code and its output on one line', async () => {
    const failure = helper.run('umount', [join(root!, 'not a mount point')]);
    await expect(failure).rejects.toBeInstanceOf(MountCommandError);
    const error = (await failure.catch((e: unknown) => e)) as MountCommandError;
    expect(error.exitCode).not.toBe(0);
    expect(error.output).toContain('not a mount point');
    expect(error.output).not.toContain('\n');
  });

  it('keeps answers apart when many commands run at once', async () => {
    const names = Array.from({ length: 20 }, (_, i) => join(root!, `missing ${i}`));
    const errors = await Promise.all(names.map((n) => helper.run('umount', [n]).then(() => expect.fail(`umount ${n} succeeded`), (e: unknown) => e as MountCommandError)));
    errors.forEach((error, i) => expect(error.output).toContain(`missing ${i}`));
  });

  it('refuses what it cannot frame, and says so', async () => {
    expect(helper.canCarry(['a\tb'])).toBe(false);
    expect(helper.canCarry(['a\nb'])).toBe(false);
    expect(helper.canCarry([''])).toBe(false);
    expect(helper.canCarry(['-t', 'tmpfs', '/a b/c'])).toBe(true);
    await expect(helper.run('umount', ['a\tb'])).rejects.toThrow('an argument holds a tab or a newline, or is empty');
  });

  it('runs nothing but mount and umount', async () => {
    const sneaky = helper.run('rm' as 'mount', ['-rf', join(root!, 'x')]);
    await expect(sneaky).rejects.toMatchObject({ exitCode: 127, output: 'refused: rm' });
  });

  it('fails what is in flight when closed, and starts a new shell on the next call', async () => {
    const inFlight = helper.run('umount', [join(root!, 'gone')]);
    helper.close();
    await expect(inFlight).rejects.toThrow('the mount helper was closed');
    await expect(helper.run('umount', [join(root!, 'again')])).rejects.toBeInstanceOf(MountCommandError);
  });

  it('fails every call when the shell cannot start', async () => {
    const broken = createMountHelper('/nonexistent/sh');
    await expect(broken.run('umount', ['/x'])).rejects.toThrow('the mount helper shell');
    broken.close();
  });

  it.skipIf(notRoot)(`mounts and unmounts tmpfs in parallel, paths with spaces included (${needsRoot})`, async () => {
    const dirs = Array.from({ length: 8 }, (_, i) => join(root!, `vol ${i}`));
    await Promise.all(dirs.map((d) => mkdir(d)));
    await Promise.all(dirs.map((d) => helper.run('mount', ['-t', 'tmpfs', '-o', 'mode=0777,size=1048576', 'tmpfs', d])));
    expect((await mountPointsUnder(root!)).sort()).toEqual([...dirs].sort());
    await Promise.all(dirs.map((d) => helper.run('umount', [d])));
    expect(await mountPointsUnder(root!)).toEqual([]);
    await Promise.all(dirs.map((d) => rm(d, { recursive: true })));
  });

  it.skipIf(notRoot)(`mounts what a table says in one call, paths with spaces included (${needsRoot})`, async () => {
    const dirs = Array.from({ length: 5 }, (_, i) => join(root!, `vol ${i}`));
    await Promise.all(dirs.map((d) => mkdir(d)));
    await helper.mountTable(dirs.map((d) => `tmpfs ${escapeOctal(d)} tmpfs mode=0755 0 0`));
    expect((await mountPointsUnder(root!)).sort()).toEqual([...dirs].sort());
  });

  it.skipIf(notRoot)(`fails a table with a line that cannot be mounted, saying which, and mounts the rest (${needsRoot})`, async () => {
    const good = join(root!, 'good');
    const missing = join(root!, 'missing');
    await mkdir(good);
    const failure = helper.mountTable([missing, good].map((d) => `tmpfs ${d} tmpfs mode=0755 0 0`));
    await expect(failure).rejects.toBeInstanceOf(MountCommandError);
    const error = (await failure.catch((e: unknown) => e)) as MountCommandError;
    expect(error.output).toContain(missing);
    expect(await mountPointsUnder(root!)).toEqual([good]);
  });

  it.skipIf(notRoot)(`leaves no table behind: each is removed after its call, their directory when the shell exits (${needsRoot})`, async () => {
    const tmp = join(root!, 'tmp');
    await mkdir(tmp);
    const dir = join(root!, 'vol');
    await mkdir(dir);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const own = createMountHelper();
    try {
      await own.mountTable([`tmpfs ${dir} tmpfs mode=0755 0 0`]);
      const [tables] = await readdir(tmp);
      expect(tables).toBeDefined();
      expect(await readdir(join(tmp, tables!))).toEqual([]);
    } finally {
      own.close();
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    await vi.waitFor(async () => expect(await readdir(tmp)).toEqual([]), { timeout: 5000, interval: 50 });
  });

  it('fails every table, and nothing else, when it has no directory to write tables in', async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(root!, 'missing');
    const own = createMountHelper();
    try {
      const table = own.mountTable([`tmpfs ${join(root!, 'vol')} tmpfs mode=0755 0 0`]);
      await expect(table).rejects.toMatchObject({ exitCode: 1, output: 'no directory for mount tables: mktemp -d failed' });
      await expect(own.run('umount', [join(root!, 'not mounted')])).rejects.toBeInstanceOf(MountCommandError);
      expect(await mountPointsUnder(root!)).toEqual([]);
    } finally {
      own.close();
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
