import { readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkHostPath } from '../../../src/adapters/volumes/host-path.js';
import type { HostPathType } from '../../../src/domain/volumes/sources.js';
import { tempRoot, unmountAndRemove } from './mount-helpers.js';

/** A block device to check against: the first under /dev, if the machine shows any. */
const blockDevice = readdirSync('/dev').map((name) => `/dev/${name}`).find((path) => {
  try {
    return statSync(path).isBlockDevice();
  } catch {
    return false;
  }
});

const modeOf = async (p: string) => (await stat(p)).mode & 0o7777;
const check = (path: string, type?: HostPathType) => checkHostPath({ path, ...(type !== undefined ? { type } : {}) });

let root: string | undefined;
let dir: string;
let file: string;
let socket: string;
let server: Server | undefined;

beforeEach(async () => {
  root = await tempRoot('klt-host-path-');
  dir = join(root, 'dir');
  file = join(root, 'file');
  socket = join(root, 'sock');
  await mkdir(dir);
  await writeFile(file, 'host data');
  const listening = createServer();
  server = listening;
  await new Promise<void>((resolve, reject) => {
    listening.once('error', reject);
    listening.listen(socket, resolve);
  });
});
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  await unmountAndRemove(root);
  root = undefined;
});

describe('checkHostPath', () => {
  it('checks nothing for an unset or empty type, even for a missing path', async () => {
    await expect(check(join(root!, 'missing'))).resolves.toBeUndefined();
    await expect(check(join(root!, 'missing'), '')).resolves.toBeUndefined();
    await expect(stat(join(root!, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('creates a missing DirectoryOrCreate path 0755 (less the umask), parents included', async () => {
    const path = join(root!, 'a/b/c');
    await check(path, 'DirectoryOrCreate');
    expect((await stat(path)).isDirectory()).toBe(true);
    expect(await modeOf(path)).toBe(0o755 & ~process.umask());
  });

  it('creates a missing FileOrCreate path as an empty file 0644 (less the umask)', async () => {
    const path = join(root!, 'new-file');
    await check(path, 'FileOrCreate');
    expect((await stat(path)).isFile()).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('');
    expect(await modeOf(path)).toBe(0o644 & ~process.umask());
  });

  it('leaves an existing FileOrCreate file as it is', async () => {
    await check(file, 'FileOrCreate');
    expect(await readFile(file, 'utf8')).toBe('host data');
  });

  it.each([
    ['DirectoryOrCreate', (): string => dir],
    ['Directory', (): string => dir],
    ['FileOrCreate', (): string => file],
    ['File', (): string => file],
    ['Socket', (): string => socket],
    ['CharDevice', (): string => '/dev/null'],
  ] as const)('accepts a %s of the right kind', async (type, path) => {
    await expect(check(path(), type)).resolves.toBeUndefined();
  });

  it.skipIf(blockDevice === undefined)('accepts a BlockDevice of the right kind (no block device under /dev otherwise)', async () => {
    await expect(check(blockDevice!, 'BlockDevice')).resolves.toBeUndefined();
  });

  it('follows a symlink as Go\'s os.Stat does: a link to a directory is a Directory', async () => {
    const link = join(root!, 'link');
    await symlink(dir, link);
    await expect(check(link, 'Directory')).resolves.toBeUndefined();
  });

  it.each([
    ['DirectoryOrCreate', (): string => file, 'a directory'],
    ['Directory', (): string => file, 'a directory'],
    ['Directory', (): string => join(root!, 'missing'), 'a directory'],
    ['FileOrCreate', (): string => dir, 'a file'],
    ['File', (): string => dir, 'a file'],
    ['File', (): string => join(root!, 'missing'), 'a file'],
    ['Socket', (): string => file, 'a socket file'],
    ['CharDevice', (): string => file, 'a character device'],
    ['BlockDevice', (): string => '/dev/null', 'a block device'],
  ] as const)('refuses a %s that is not %s with Go\'s message', async (type, path, what) => {
    const failure = check(path(), type);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow(`hostPath type check failed: ${path()} is not ${what}`);
  });

  it('refuses a dangling symlink as a DirectoryOrCreate and creates nothing through it', async () => {
    const link = join(root!, 'dangling');
    await symlink(join(root!, 'nowhere'), link);
    await expect(check(link, 'DirectoryOrCreate')).rejects.toThrow(`hostPath type check failed: ${link} is not a directory`);
    await expect(stat(join(root!, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  // A DirectoryOrCreate PV with `..` in its path was made where the path resolved.
  it.each(['', 'DirectoryOrCreate', 'FileOrCreate', 'Directory'] as const)('refuses a path with a `..` element (type %j) before making or looking at anything', async (type) => {
    const path = `${root!}/made/../escaped`; // join() would resolve the `..`
    const failure = check(path, type);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: `invalid HostPath \`${path}\`: must not contain '..'` });
    await expect(stat(join(root!, 'made'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(root!, 'escaped'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('accepts a `..` that is only part of a name, as Go does', async () => {
    await expect(check(join(root!, '..data'), 'DirectoryOrCreate')).resolves.toBeUndefined();
    expect((await stat(join(root!, '..data'))).isDirectory()).toBe(true);
  });

  it('refuses an unknown type with Go\'s message', async () => {
    const failure = check(dir, 'Fifo' as HostPathType);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT' });
    await expect(failure).rejects.toThrow('Fifo is an invalid volume type');
  });
});
