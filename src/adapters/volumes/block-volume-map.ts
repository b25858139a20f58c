/**
 * A local PV of volumeMode Block mapped into a pod (Go: pkg/volume/local's block mapper and
 * volumepathhandler's MapDevice): a symlink `<podDir>/volumeDevices/kubernetes.io~local-volume/<pv>`
 * to the PV's path, which must be a block device. The container runtime is given the symlink as a
 * device's host path and resolves it. Unmapping removes the symlink only: the device is the node's.
 *
 * Differs from Go: no global map path with its bind mount, and no loop device held open as a lock
 * (see docs/DIFFERENCES.md); a regular file as a Block PV's path is refused (Go loop-attaches it).
 */
import { lstat, mkdir, readlink, stat, symlink, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { assertBelowPodDirectory } from './pod-confinement.js';
import { volumeOperationError } from './local-volume.js';

export interface BlockVolumeMap {
  pvName: string;
  /** The PV's `local.path`: a block device. */
  devicePath: string;
  /** The symlink to make, below `podDir`. */
  link: string;
  podDir: string;
}

/** The PV's path must be a block device (the block mapper's device path). */
async function checkBlockDevice(pvName: string, path: string): Promise<void> {
  if (path === '') throw volumeOperationError('MapVolume.NewBlockVolumeMapper initialization', pvName, 'local volume source is nil or local path is not set');
  let isBlock;
  try {
    isBlock = (await stat(path)).isBlockDevice();
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw volumeOperationError('MapVolume.MapPodDevice', pvName, missing ? `path ${JSON.stringify(path)} does not exist` : (error as Error).message);
  }
  if (!isBlock) throw volumeOperationError('MapVolume.MapPodDevice', pvName, `path ${JSON.stringify(path)} is not a block device: kubelet-ts maps block devices only`);
}

/** Makes (or keeps) the pod's symlink to the device; a link to anything else is replaced. */
export async function mapBlockVolume(map: BlockVolumeMap): Promise<void> {
  await checkBlockDevice(map.pvName, map.devicePath);
  await mkdir(dirname(map.link), { recursive: true, mode: 0o750 });
  // The directory is checked, not the link: a link made already resolves to the device, off the pod's directory.
  await assertBelowPodDirectory({ dir: dirname(map.link), podDir: map.podDir });
  const existing = await lstat(map.link).catch(() => undefined);
  if (existing?.isSymbolicLink() && (await readlink(map.link)) === map.devicePath) return;
  try {
    if (existing) await unlink(map.link);
    await symlink(map.devicePath, map.link);
  } catch (error) {
    throw volumeOperationError('MapVolume.MapBlockVolume', map.pvName, (error as Error).message);
  }
}

/** Removes the pod's symlink (never what it points to); gone already is done. */
export async function unmapBlockVolume(link: string): Promise<void> {
  try {
    if (!(await lstat(link)).isSymbolicLink()) throw new Error(`${link} is not a symlink: the kubelet removes only the map it made`);
    await unlink(link);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
