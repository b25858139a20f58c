import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENV_FILE_MAX_BYTES, joinInsideVolume, readEnvFile } from '../../../src/adapters/fs/env-file-reader.js';

let dir: string;
let volume: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-env-file-'));
  volume = join(dir, 'volume');
  mkdirSync(volume);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readEnvFile', () => {
  it('reads a file inside the volume, and keeps a path with .. inside it', async () => {
    writeFileSync(join(volume, 'config.env'), "A='a'\n");
    expect(await readEnvFile(volume, 'config.env')).toEqual({ path: join(volume, 'config.env'), text: "A='a'\n" });
    expect(joinInsideVolume(volume, '../../etc/passwd')).toBe(join(volume, 'etc/passwd'));
    expect(await readEnvFile(volume, '../config.env')).toEqual({ path: join(volume, 'config.env'), text: "A='a'\n" });
  });

  it('refuses a link that leads out of the volume, without reading it', async () => {
    writeFileSync(join(dir, 'secret.env'), "A='node secret'\n");
    symlinkSync(join(dir, 'secret.env'), join(volume, 'config.env'));
    const read = await readEnvFile(volume, 'config.env');
    expect(read).toEqual({ path: join(volume, 'config.env'), unreadable: `resolves to ${join(dir, 'secret.env')}, outside its volume` });
  });

  it('refuses a FIFO, a file over the bound and a missing file, naming the path', async () => {
    execFileSync('mkfifo', [join(volume, 'fifo')]);
    expect(await readEnvFile(volume, 'fifo')).toMatchObject({ unreadable: expect.stringMatching(/fifo": is a FIFO, not a regular file$/) });
    writeFileSync(join(volume, 'big.env'), Buffer.alloc(ENV_FILE_MAX_BYTES + 1, 0x41));
    expect(await readEnvFile(volume, 'big.env')).toMatchObject({ unreadable: expect.stringContaining(`over the ${ENV_FILE_MAX_BYTES} byte limit`) });
    expect(await readEnvFile(volume, 'absent.env')).toMatchObject({ unreadable: expect.stringMatching(/^failed to open environment variable file ".*absent\.env": ENOENT/) });
  });
});
