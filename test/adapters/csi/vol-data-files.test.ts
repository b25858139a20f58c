import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPodVolData, readStagingVolData, VOL_DATA_MAX_BYTES } from '../../../src/adapters/csi/vol-data-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-vol-data-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const POD_VOL_DATA = { specVolID: 'pv-1', volumeHandle: 'h1', driverName: 'csi.example.com', nodeName: 'node-a', attachmentID: '', volumeLifecycleMode: 'Persistent' };

describe('readPodVolData', () => {
  it('reads a pod volume\'s file', async () => {
    const path = join(dir, 'vol_data.json');
    writeFileSync(path, JSON.stringify(POD_VOL_DATA));
    expect(await readPodVolData(path)).toEqual(POD_VOL_DATA);
  });

  // Read whole, a link to /dev/zero or a 1 GiB sparse file cost most of a GiB and seconds on every stats period.
  it('refuses a symbolic link, even to a good file, naming the path', async () => {
    const real = join(dir, 'real.json');
    writeFileSync(real, JSON.stringify(POD_VOL_DATA));
    const path = join(dir, 'vol_data.json');
    symlinkSync(real, path);
    await expect(readPodVolData(path)).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT', message: `cannot read ${path}: is a symbolic link, not followed` });
  });

  it('refuses a file over its bound before reading it, naming the path', async () => {
    const path = join(dir, 'vol_data.json');
    writeFileSync(path, '');
    truncateSync(path, VOL_DATA_MAX_BYTES + 1); // sparse: nothing is written
    await expect(readPodVolData(path)).rejects.toMatchObject({
      code: 'KLT_ERR_VOLUME_MOUNT', message: `cannot read ${path}: is ${VOL_DATA_MAX_BYTES + 1} bytes, over the ${VOL_DATA_MAX_BYTES} byte limit`,
    });
  });

  it('keeps a missing file\'s ENOENT, which its callers test for', async () => {
    await expect(readPodVolData(join(dir, 'vol_data.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readStagingVolData', () => {
  it('reads a staging file, answers undefined for a missing one, and refuses a link to /dev/zero naming the path', async () => {
    const path = join(dir, 'vol_data.json');
    expect(await readStagingVolData(path)).toBeUndefined();
    writeFileSync(path, JSON.stringify({ volumeHandle: 'h1', driverName: 'csi.example.com' }));
    expect(await readStagingVolData(path)).toEqual({ volumeHandle: 'h1', driverName: 'csi.example.com' });
    rmSync(path);
    symlinkSync('/dev/zero', path);
    await expect(readStagingVolData(path)).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT', message: `cannot read ${path}: is a symbolic link, not followed` });
  });
});
