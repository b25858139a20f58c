/**
 * The device manager's checkpoint file on disk: written whole to a temporary name then renamed
 * (a crash leaves the old file or the new, never half of one), 0600 as Go's checkpoint manager
 * writes it; read back and verified (checkpoint.ts), only as a regular file within a size bound.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeDeviceCheckpoint, encodeDeviceCheckpoint, type DeviceCheckpoint } from '../../domain/device-manager/checkpoint.js';
import { DEVICE_MANAGER_CHECKPOINT } from '../../domain/device-manager/device-plugin-api.js';
import { KubeletError } from '../../domain/errors.js';
import { readRegularFile } from '../bounded-input/read-regular-file.js';

/** Thousands of containers' devices with their Allocate answers come to a few MiB at most. */
export const DEVICE_CHECKPOINT_MAX_BYTES = 64 * 1024 * 1024;

export const checkpointPath = (dir: string) => join(dir, DEVICE_MANAGER_CHECKPOINT);

export async function writeDeviceCheckpoint(dir: string, checkpoint: DeviceCheckpoint): Promise<void> {
  const path = checkpointPath(dir);
  const tmp = `${path}.tmp`;
  await writeFile(tmp, encodeDeviceCheckpoint(checkpoint), { mode: 0o600 });
  await rename(tmp, path);
}

/**
 * null when there is no file; a KubeletError naming the file when it is unreadable or corrupt. The
 * directory is made here, once at start, when missing: the first checkpoint is written before the
 * registration server makes it.
 */
export async function readDeviceCheckpoint(dir: string): Promise<DeviceCheckpoint | null> {
  const path = checkpointPath(dir);
  await mkdir(dir, { recursive: true, mode: 0o750 });
  let text: string;
  try {
    text = (await readRegularFile(path, DEVICE_CHECKPOINT_MAX_BYTES)).text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new KubeletError('KLT_ERR_DEVICE_PLUGIN', `failed to read the device manager checkpoint ${path}: ${(err as Error).message}`, { cause: err });
  }
  const decoded = decodeDeviceCheckpoint(text);
  if (!decoded.ok) throw new KubeletError('KLT_ERR_DEVICE_PLUGIN', `the device manager checkpoint ${path} cannot be used: ${decoded.error}`);
  return decoded.checkpoint;
}
