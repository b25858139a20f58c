import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectories, makeDirectoriesSync, makeKubeletDirectory, makeKubeletDirectorySync } from '../../../src/adapters/fs/make-directories.js';

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

  // mkdir's mode goes through the umask: for the kubelet's own directories a permissive one must not
  // widen it, a strict one not narrow it.
  it.each([0o000, 0o077])('gives every level of a kubelet directory it makes the mode asked under umask %o, in both forms, and leaves a level that was there alone', async (umask) => {
    const there = join(dir, 'there');
    mkdirSync(there, { mode: 0o700 });
    const previous = process.umask(umask);
    try {
      await makeKubeletDirectory(join(there, 'a', 'b'), 0o750);
      makeKubeletDirectorySync(join(there, 's', 't'), 0o750);
    } finally {
      process.umask(previous);
    }
    const modeOf = (path: string) => statSync(path).mode & 0o777;
    expect([modeOf(join(there, 'a')), modeOf(join(there, 'a', 'b')), modeOf(join(there, 's')), modeOf(join(there, 's', 't'))]).toEqual([0o750, 0o750, 0o750, 0o750]);
    expect(modeOf(there)).toBe(0o700);
  });

  it('fails naming the path when a level is a file, in both forms', async () => {
    writeFileSync(join(dir, 'file'), '');
    const notADirectory = { code: 'ENOTDIR', message: expect.stringContaining(join(dir, 'file')) };
    expect(() => makeDirectoriesSync(join(dir, 'file', 'x'))).toThrow(expect.objectContaining(notADirectory));
    await expect(makeDirectories(join(dir, 'file', 'x'))).rejects.toMatchObject(notADirectory);
  });

  // A pod's log directory is made on the hot path of a start wave: the promise form must let the
  // event loop run while the file system works (made synchronously, it doubled a pod start's
  // kubelet share at 110 pods).
  it('lets the event loop run between its steps in the promise form', async () => {
    let turned = false;
    setImmediate(() => { turned = true; });
    await makeDirectories(join(dir, 'a', 'b', 'c'));
    expect(turned).toBe(true);
  });

  it('makes the kubelet\'s directories in both forms, a failure being the host\'s and naming the directory', async () => {
    makeKubeletDirectorySync(join(dir, 'sync', 'x'));
    await makeKubeletDirectory(join(dir, 'async', 'x'));
    expect(statSync(join(dir, 'sync', 'x')).isDirectory() && statSync(join(dir, 'async', 'x')).isDirectory()).toBe(true);
    writeFileSync(join(dir, 'file'), '');
    const hostError = { code: 'KLT_ERR_HOST_IO', message: expect.stringContaining(`cannot create directory ${join(dir, 'file', 'x')}`) };
    expect(() => makeKubeletDirectorySync(join(dir, 'file', 'x'))).toThrow(expect.objectContaining(hostError));
    await expect(makeKubeletDirectory(join(dir, 'file', 'x'))).rejects.toMatchObject(hostError);
  });

  it.each(['/proc/nope/x', '/proc/x/pki'])('fails at once under /proc (%s) where fs.mkdir recursive spins for ever (#14)', async (path) => {
    await expect(makeDirectories(path)).rejects.toMatchObject({ code: 'ENOENT', message: expect.stringContaining(path.split('/').slice(0, 3).join('/')) });
  });
});
