import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPathWithinBase, resolveSubPath, safeMakeDir } from '../../../src/adapters/fs/subpath-resolver.js';
import { containerSubPath } from '../../../src/domain/runtime/subpath.js';

let root: string;
let volume: string;
let outside: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'klt-subpath-')));
  volume = join(root, 'pods', 'u1', 'volumes', 'kubernetes.io~empty-dir', 'data');
  outside = join(root, 'outside');
  mkdirSync(volume, { recursive: true });
  mkdirSync(outside);
  chmodSync(volume, 0o2775);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const resolve = (subPath: string) => resolveSubPath({ volumePath: volume, subPath, volumeMountName: 'data', containerName: 'app' });

describe('resolveSubPath', () => {
  it('answers an existing directory or file inside the volume', async () => {
    mkdirSync(join(volume, 'logs'));
    writeFileSync(join(volume, 'app.conf'), 'x');
    expect(await resolve('logs')).toBe(join(volume, 'logs'));
    expect(await resolve('app.conf')).toBe(join(volume, 'app.conf'));
  });

  it('answers a nested path', async () => {
    mkdirSync(join(volume, 'a', 'b', 'c'), { recursive: true });
    expect(await resolve('a/b/c')).toBe(join(volume, 'a', 'b', 'c'));
  });

  it('creates a missing subPath, each level with the volume directory\'s mode', async () => {
    const previous = process.umask(0o077);
    try {
      expect(await resolve('x/y/z')).toBe(join(volume, 'x', 'y', 'z'));
    } finally {
      process.umask(previous);
    }
    for (const dir of ['x', 'x/y', 'x/y/z']) expect(statSync(join(volume, dir)).mode & 0o7777).toBe(0o2775);
  });

  it('follows a symlink that stays inside the volume, relative or absolute', async () => {
    mkdirSync(join(volume, 'real'));
    symlinkSync('real', join(volume, 'alias'));
    symlinkSync(join(volume, 'real'), join(volume, 'absolute-alias'));
    expect(await resolve('alias')).toBe(join(volume, 'real'));
    expect(await resolve('absolute-alias')).toBe(join(volume, 'real'));
    expect(await resolve('alias/made')).toBe(join(volume, 'real', 'made'));
  });

  it.each([
    ['an absolute symlink out', () => symlinkSync(outside, join(volume, 'esc')), 'esc'],
    ['a relative ../.. symlink out', () => symlinkSync('../..', join(volume, 'esc')), 'esc'],
    ['a symlink to /etc', () => symlinkSync('/etc', join(volume, 'esc')), 'esc'],
    ['a symlink to a file outside', () => { writeFileSync(join(outside, 'secret'), 's'); symlinkSync(join(outside, 'secret'), join(volume, 'esc')); }, 'esc'],
    ['a symlink deeper in the path', () => { mkdirSync(join(volume, 'a')); symlinkSync(outside, join(volume, 'a', 'esc')); }, 'a/esc'],
  ])('refuses %s with KLT_ERR_CONTAINER_CONFIG', async (_, arrange, subPath) => {
    arrange();
    await expect(resolve(subPath)).rejects.toMatchObject({ code: 'KLT_ERR_CONTAINER_CONFIG' });
  });

  it('refuses to create a missing directory through a symlink that leaves the volume, and creates nothing outside', async () => {
    symlinkSync(outside, join(volume, 'esc'));
    symlinkSync('../../../../../outside', join(volume, 'rel-esc'));
    expect(realpathSync(join(volume, 'rel-esc'))).toBe(outside);
    await expect(resolve('esc/new/deeper')).rejects.toMatchObject({ code: 'KLT_ERR_CONTAINER_CONFIG' });
    await expect(resolve('rel-esc/new')).rejects.toMatchObject({ code: 'KLT_ERR_CONTAINER_CONFIG' });
    expect(existsSync(join(outside, 'new'))).toBe(false);
  });

  it('refuses a dangling symlink where a directory would be made', async () => {
    symlinkSync(join(outside, 'not-yet'), join(volume, 'dangling'));
    await expect(resolve('dangling')).rejects.toMatchObject({ code: 'KLT_ERR_CONTAINER_CONFIG' });
    expect(existsSync(join(outside, 'not-yet'))).toBe(false);
  });

  it('resolves what subPathExpr expanded to, and never gets a refused expansion', async () => {
    const env = [{ name: 'POD_NAME', value: 'web-0' }, { name: 'UP', value: '..' }];
    const subPath = containerSubPath({ name: 'data', mountPath: '/data', subPathExpr: 'pods/$(POD_NAME)' }, env);
    expect(await resolve(subPath)).toBe(join(volume, 'pods', 'web-0'));
    expect(() => containerSubPath({ name: 'data', mountPath: '/data', subPathExpr: '$(UP)/x' }, env)).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG' }));
  });
});

describe('safeMakeDir', () => {
  it('accepts a directory that is there and refuses a file in the way', async () => {
    mkdirSync(join(volume, 'there'));
    writeFileSync(join(volume, 'file'), '');
    await safeMakeDir('there', volume, 0o755);
    await expect(safeMakeDir('file', volume, 0o755)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});

describe('isPathWithinBase', () => {
  it.each([
    ['/v', '/v', true],
    ['/v/a/b', '/v', true],
    ['/v2', '/v', false],
    ['/', '/v', false],
    ['/v/..x', '/v', true],
  ])('%s in %s: %s', (path, base, expected) => {
    expect(isPathWithinBase(path, base)).toBe(expected);
  });
});
