import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { containerLogFiles as files } from '../../../src/adapters/fs/container-log-files.js';

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
