import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointFiles } from '../../../src/adapters/host/checkpoint-files.js';

const BOUND = 1024 * 1024;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-checkpoint-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('checkpointFiles', () => {
  it('reads a file back as written, and answers null for a missing one', async () => {
    const path = join(dir, 'cpu_manager_state');
    await checkpointFiles.write(path, '{"policyName":"none"}');
    expect(readFileSync(path, 'utf8')).toBe('{"policyName":"none"}');
    expect(await checkpointFiles.read(path, BOUND)).toBe('{"policyName":"none"}');
    expect(await checkpointFiles.read(join(dir, 'memory_manager_state'), BOUND)).toBeNull();
  });

  // A garbage 600 MB cpu_manager_state ended start-up with `Invalid string length`, naming no file.
  it('refuses a file over its bound before reading it, naming the file', async () => {
    const path = join(dir, 'cpu_manager_state');
    writeFileSync(path, '');
    truncateSync(path, BOUND + 1); // sparse: nothing is written
    await expect(checkpointFiles.read(path, BOUND)).rejects.toMatchObject({
      code: 'KLT_ERR_HOST_IO', message: `cannot read the state file ${path}: is ${BOUND + 1} bytes, over the ${BOUND} byte limit`,
    });
  });

  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
    ['a directory', (path: string) => mkdirSync(path)],
  ])('refuses %s in place of the file at once, naming the file', async (what, make) => {
    const path = join(dir, 'memory_manager_state');
    make(path);
    await expect(checkpointFiles.read(path, BOUND)).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO', message: `cannot read the state file ${path}: is ${what}, not a regular file` });
  });
});
