import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectories, makeDirectoriesSync } from '../../../src/adapters/fs/make-directories.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-mkdir-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('makeDirectories', () => {
  it('makes every missing level with the mode asked, and accepts a path that is already there', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    await makeDirectories(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700);
    await makeDirectories(deep);
    makeDirectoriesSync(dir);
  });

  it('fails naming the path when a level is a file', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(() => makeDirectoriesSync(join(dir, 'file', 'x'))).toThrow(expect.objectContaining({ code: 'ENOTDIR', message: expect.stringContaining(join(dir, 'file')) }));
  });

  it.each(['/proc/nope/x', '/proc/x/pki'])('fails at once under /proc (%s) where fs.mkdir recursive spins for ever (#14)', async (path) => {
    await expect(makeDirectories(path)).rejects.toMatchObject({ code: 'ENOENT', message: expect.stringContaining(path.split('/').slice(0, 3).join('/')) });
  });
});
