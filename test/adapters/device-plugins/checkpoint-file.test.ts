import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointPath, DEVICE_CHECKPOINT_MAX_BYTES, readDeviceCheckpoint, writeDeviceCheckpoint } from '../../../src/adapters/device-plugins/checkpoint-file.js';
import type { DeviceCheckpoint } from '../../../src/domain/device-manager/checkpoint.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-device-checkpoint-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CHECKPOINT: DeviceCheckpoint = {
  entries: [{ podUid: 'u1', containerName: 'c', resourceName: 'example.com/dev', deviceIds: { '0': ['Dev-1'] }, allocResp: null }],
  registeredDevices: { 'example.com/dev': ['Dev-1'] },
};

describe('readDeviceCheckpoint', () => {
  it('reads back what was written, and answers null when there is no file', async () => {
    expect(await readDeviceCheckpoint(dir)).toBeNull();
    await writeDeviceCheckpoint(dir, CHECKPOINT);
    expect(await readDeviceCheckpoint(dir)).toEqual(CHECKPOINT);
  });

  it('refuses a file over its bound before reading it, naming the file', async () => {
    const path = checkpointPath(dir);
    writeFileSync(path, '');
    truncateSync(path, DEVICE_CHECKPOINT_MAX_BYTES + 1); // sparse: nothing is written
    await expect(readDeviceCheckpoint(dir)).rejects.toMatchObject({
      code: 'KLT_ERR_DEVICE_PLUGIN', message: `failed to read the device manager checkpoint ${path}: is ${DEVICE_CHECKPOINT_MAX_BYTES + 1} bytes, over the ${DEVICE_CHECKPOINT_MAX_BYTES} byte limit`,
    });
  });

  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
    ['a directory', (path: string) => mkdirSync(path)],
  ])('refuses %s in place of the file at once, naming the file', async (what, make) => {
    const path = checkpointPath(dir);
    make(path);
    await expect(readDeviceCheckpoint(dir)).rejects.toMatchObject({
      code: 'KLT_ERR_DEVICE_PLUGIN', message: `failed to read the device manager checkpoint ${path}: is ${what}, not a regular file`,
    });
  });
});
