import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createContainerLogFiles } from '../../../src/adapters/fs/container-log-files.js';
import { plantedLogDirectory } from './planted-log-directory.js';

const files = createContainerLogFiles(pino({ level: 'silent' }));

const dir = () => mkdtempSync(join(tmpdir(), 'kts-logfiles-'));

describe('containerLogFiles', () => {
  it('compresses a file to <file>.gz with its mode, leaving neither the plain file nor a .tmp', async () => {
    const d = dir();
    const f = join(d, '0.log.20261126-030000');
    const text = 'line\n'.repeat(100_000);
    writeFileSync(f, text);
    chmodSync(f, 0o640);
    await files.compress(f);
    expect(readdirSync(d)).toEqual(['0.log.20261126-030000.gz']);
    expect(gunzipSync(readFileSync(`${f}.gz`)).toString()).toBe(text);
    expect(statSync(`${f}.gz`).mode & 0o777).toBe(0o640);
  });

  it('lists the files named <log>.<anything> beside a log, not the log or its look-alikes', async () => {
    const d = dir();
    for (const n of ['0.log', '0.log.a', '0.log.b.gz', '0.logx', '1.log.a']) writeFileSync(join(d, n), '');
    expect((await files.siblings(join(d, '0.log'))).sort()).toEqual([join(d, '0.log.a'), join(d, '0.log.b.gz')]);
    expect(await files.siblings(join(d, 'gone', '0.log'))).toEqual([]);
  });

  it('answers null for the size of a missing file, and removes one without complaint', async () => {
    const d = dir();
    expect(await files.size(join(d, 'nope'))).toBeNull();
    await expect(files.remove(join(d, 'nope'))).resolves.toBeUndefined();
  });
});

describe('containerLogFiles in a log directory a pod planted links in', () => {
  it('measures, lists and renames only regular files: a link is refused or left out, never followed', async () => {
    const p = plantedLogDirectory();
    symlinkSync(p.secret, p.log);
    symlinkSync(p.secret, `${p.log}.20261126-020000`);
    writeFileSync(`${p.log}.20261126-010000`, 'old\n');
    await expect(files.size(p.log)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining('is not a regular file') as string });
    expect(await files.siblings(p.log)).toEqual([`${p.log}.20261126-010000`]);
    await expect(files.rename(p.log, `${p.log}.20261126-030000`)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(files.rename(`${p.log}.20261126-010000`, `${p.log}.20261126-020000`)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    p.expectSecretUntouched();
  });

  it('never compresses a link: the outside file stays as it was and its content never reaches the pod directory', async () => {
    const p = plantedLogDirectory();
    const rotated = `${p.log}.20261126-020000`;
    symlinkSync(p.secret, rotated);
    await expect(files.compress(rotated)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining(rotated) as string });
    p.expectSecretUntouched();
    p.expectSecretNowhereInPodDirectory();
  });

  it('never writes through a link planted at the temporary or the compressed name', async () => {
    for (const suffix of ['.tmp', '.gz']) {
      const p = plantedLogDirectory();
      const rotated = `${p.log}.20261126-020000`;
      writeFileSync(rotated, 'the pod\'s own line\n'.repeat(1000));
      symlinkSync(p.secret, `${rotated}${suffix}`);
      await expect(files.compress(rotated)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining(`${rotated}${suffix}`) as string });
      p.expectSecretUntouched();
      expect(readFileSync(rotated, 'utf8')).toContain('the pod\'s own line');
    }
  });

  it('does nothing through a container directory that is a link', async () => {
    const p = plantedLogDirectory();
    const elsewhere = mkdtempSync(join(tmpdir(), 'kts-elsewhere-'));
    writeFileSync(join(elsewhere, '0.log'), 'x'.repeat(100));
    writeFileSync(join(elsewhere, '0.log.20261126-020000'), 'rotated');
    p.replaceContainerDirectoryWithLinkTo(elsewhere);
    await expect(files.size(p.log)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining('is not a directory') as string });
    await expect(files.rename(p.log, `${p.log}.20261126-030000`)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    await expect(files.compress(`${p.log}.20261126-020000`)).rejects.toMatchObject({ code: 'KLT_ERR_PATH_UNSAFE' });
    // A container's removal lists and removes nothing there, and does not fail for it.
    expect(await files.siblings(p.log)).toEqual([]);
    await files.remove(`${p.log}.20261126-020000`);
    expect(readdirSync(elsewhere).sort()).toEqual(['0.log', '0.log.20261126-020000']);
  });

  it('removes a link itself, never its target', async () => {
    const p = plantedLogDirectory();
    symlinkSync(p.secret, `${p.log}.20261126-020000`);
    await files.remove(`${p.log}.20261126-020000`);
    expect(readdirSync(p.containerDir)).toEqual([]);
    p.expectSecretUntouched();
  });
});
