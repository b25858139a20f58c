import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockStateDir } from '../../../../src/adapters/embedded-runtime/state/state-dir-lock.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-lock-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('lockStateDir', () => {
  it('refuses a second holder until the first releases', async () => {
    const lock = await lockStateDir(dir);
    await expect(lockStateDir(dir)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
    await lock.release();
    const again = await lockStateDir(dir);
    await again.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over a lock whose holder is gone', async () => {
    const exited = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
    await writeFile(join(dir, 'runtime.lock'), JSON.stringify({ pid: Number(exited), startTime: '1' }));
    const lock = await lockStateDir(dir);
    await lock.release();
  });
});
