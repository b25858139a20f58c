import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readJsonFile, readJsonFileSync, writeFileAtomic, writeFileAtomicSync,
} from '../../../../src/adapters/embedded-runtime/shim/atomic-file.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-atomic-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('atomic files', () => {
  it('reads absent, torn and good JSON as three different answers, sync and async alike', async () => {
    await writeFile(join(dir, 'torn.json'), '{"a":');
    await writeFileAtomic(join(dir, 'good.json'), '{"a":1}');
    for (const read of [readJsonFileSync, readJsonFile]) {
      expect(await read(join(dir, 'absent.json'))).toEqual({ kind: 'absent' });
      expect(await read(join(dir, 'torn.json'))).toMatchObject({ kind: 'torn' });
      expect(await read(join(dir, 'good.json'))).toEqual({ kind: 'ok', value: { a: 1 } });
    }
  });

  it('replaces the whole file and leaves only the target behind', async () => {
    const path = join(dir, 'x.json');
    writeFileAtomicSync(path, '{"v":"first, longer content"}');
    writeFileAtomicSync(path, '{"v":2}');
    expect(readJsonFileSync(path)).toEqual({ kind: 'ok', value: { v: 2 } });
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it('fails without leaving a temporary file when the directory does not exist', async () => {
    await expect(writeFileAtomic(join(dir, 'missing', 'x.json'), '{}')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => writeFileAtomicSync(join(dir, 'missing', 'x.json'), '{}')).toThrow();
    expect(await readdir(dir)).toEqual([]);
  });
});
