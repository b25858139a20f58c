/**
 * A `local` PV (Go: pkg/volume/local): the PV's path, which must exist and be a directory, bind
 * mounted on `<root>/pods/<uid>/volumes/kubernetes.io~local-volume/<pvName>` (0750), read-only by a
 * remount when the claim is, with the PV's mountOptions. A directory that is a mount point already is
 * set up (a remount, or a set-up after a kubelet restart). A writable one gets the pod's fsGroup.
 * A path with a `..` element is refused (Go's SetUpAt, ValidatePathNoBacksteps), before anything is
 * looked at (Go's NewMounter stats the path first, so a missing one is reported there as missing).
 *
 * Differs from Go: the fsGroup is applied even while another pod has the path mounted (Go applies
 * it only on the first mount and warns of a GID mismatch otherwise); a block-device path of a
 * Filesystem PV is refused (Go formats and mounts it). A Block PV is mapped: block-volume-map.ts.
 */
import { mkdir, stat } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import { hasBackstep } from '../../domain/pod-config/local-paths.js';
import type { Pod } from '../../domain/pod/types.js';
import type { Mounter } from './mount-table.js';
import { assertBelowPodDirectory, type PodVolumeTarget } from './pod-confinement.js';
import { setVolumeOwnership } from './volume-ownership.js';

export interface LocalVolumeMount {
  pvName: string;
  path: string;
  readOnly: boolean;
  mountOptions: readonly string[];
}

/** Go's operation error text for the PV: `<operation> failed for volume "<pv>" : <why>`. */
export function volumeOperationError(operation: string, pvName: string, why: string): KubeletError {
  return new KubeletError('KLT_ERR_VOLUME_OPERATION', `${operation} failed for volume "${pvName}" : ${why}`);
}

/** NewMounter's getGlobalLocalPath: the path must be a directory (hostutil's GetFileType and its texts). */
async function checkLocalPath(pvName: string, path: string): Promise<void> {
  if (path === '') throw volumeOperationError('MountVolume.NewMounter initialization', pvName, 'local volume source is nil or local path is not set');
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw volumeOperationError('MountVolume.NewMounter initialization', pvName, missing ? `path ${JSON.stringify(path)} does not exist` : (error as Error).message);
  }
  if (!info.isDirectory()) throw volumeOperationError('MountVolume.NewMounter initialization', pvName, 'only directory and block device are supported');
}

export async function setUpLocalVolume(mounter: Mounter, target: PodVolumeTarget, pod: Pod, local: LocalVolumeMount): Promise<void> {
  if (hasBackstep(local.path)) throw volumeOperationError('MountVolume.SetUp', local.pvName, `invalid path: ${local.path} must not contain '..'`);
  await checkLocalPath(local.pvName, local.path);
  const made = await mkdir(target.dir, { recursive: true, mode: 0o750 });
  await assertBelowPodDirectory(target);
  // The mount table, not a device comparison: a bind mount within one file system has its parent's device.
  if (made === undefined && (await mounter.mountPoints()).includes(target.dir)) return;
  if (!mounter.bindMount) throw volumeOperationError('MountVolume.SetUp', local.pvName, 'this mounter cannot bind mount');
  const options = [...(local.readOnly ? ['ro'] : []), ...local.mountOptions];
  try {
    await mounter.bindMount(local.path, target.dir, options);
  } catch (error) {
    throw volumeOperationError('MountVolume.SetUp', local.pvName, (error as Error).message);
  }
  const fsGroup = pod.spec.securityContext?.fsGroup;
  if (!local.readOnly && fsGroup !== undefined) {
    const policy = pod.spec.securityContext?.fsGroupChangePolicy;
    await setVolumeOwnership(target.dir, fsGroup, { readOnly: false, ...(policy !== undefined ? { policy } : {}) });
  }
}
