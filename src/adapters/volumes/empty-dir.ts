/**
 * emptyDir (Go: pkg/volume/emptydir): a directory under the pod's volume directory, world-writable
 * (0777, so a container of any user can use it); `medium: Memory` mounts a tmpfs there, sized by
 * `sizeLimit` when given. A set-up after a kubelet restart finds the tmpfs still mounted and keeps
 * it (and its content).
 *
 * With the pod's fsGroup, SetVolumeOwnership as Go applies it (volume-ownership.ts): every entry
 * gets the group, group read-write (directories also search and setgid, so files made later inherit
 * the group); under fsGroupChangePolicy OnRootMismatch only when the root lacks them. The directory
 * is chmodded to 0777 only when its permission bits differ, as Go's setupDir, so its setgid bit stays.
 *
 * Differs from Go: without a sizeLimit the tmpfs has the kernel's default size (half the RAM),
 * where Go sizes it to the pod's memory limit or the node's allocatable memory.
 * HugePages media are refused.
 */
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import { parseQuantity, quantityValue } from '../../domain/resources/quantity.js';
import type { EmptyDirVolumeSource } from '../../domain/volumes/sources.js';
import { isMountPoint, type Mounter } from './mount-table.js';
import { assertBelowPodDirectory, type PodVolumeTarget } from './pod-confinement.js';
import { allOrFirstError } from './settled-calls.js';
import { setVolumeOwnership } from './volume-ownership.js';

/** Makes `dir` (and its parents) with exactly `mode` whatever the umask, once it is known to be below the pod's directory. */
export async function makePodVolumeDirectory(target: PodVolumeTarget, mode: number): Promise<void> {
  await mkdir(target.dir, { recursive: true, mode });
  await assertBelowPodDirectory(target);
  await chmod(target.dir, mode);
}

export async function setUpEmptyDir(mounter: Mounter, target: PodVolumeTarget, source: EmptyDirVolumeSource, fsGroup?: number, fsGroupChangePolicy?: string): Promise<void> {
  const { dir } = target;
  const medium = source.medium ?? '';
  if (medium !== '' && medium !== 'Memory') {
    throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `emptyDir medium "${medium}" is not supported by kubelet-ts`);
  }
  // Go's SetUpAt: a memory-backed directory that is a mount point already is set up (a remount, or
  // a set-up after a restart), so it is neither made nor changed again, once it is known to be the
  // pod's. With an fsGroup, its ownership is applied as always.
  if (medium === 'Memory' && fsGroup === undefined && (await isMountPoint(dir).catch(() => false))) {
    await assertBelowPodDirectory(target);
    return;
  }
  // A directory made just now is no mount point, so it is not checked, and its mode is set while the
  // tmpfs is mounted: what the container sees is 0777 either way, the tmpfs being mounted with that
  // mode (the chmod may land on the directory below it, or on the tmpfs). Each call on the thread
  // pool waits for a turn of the event loop, and in a burst of pods a turn is long.
  const made = await mkdir(dir, { recursive: true, mode: 0o777 });
  await assertBelowPodDirectory(target);
  const mountIfNeeded = async () => {
    if (medium !== 'Memory' || (made === undefined && (await isMountPoint(dir)))) return;
    const sizeBytes = source.sizeLimit !== undefined ? Number(quantityValue(parseQuantity(source.sizeLimit))) : undefined;
    await mounter.mountTmpfs(dir, { mode: 0o777, ...(sizeBytes !== undefined && sizeBytes > 0 ? { sizeBytes } : {}) });
  };
  // A directory found in place keeps its mode when its permission bits are right already (its setgid too).
  const keepsMode = made === undefined && fsGroup !== undefined && ((await lstat(dir)).mode & 0o777) === 0o777;
  await allOrFirstError([mountIfNeeded(), keepsMode ? Promise.resolve() : chmod(dir, 0o777)]);
  if (fsGroup !== undefined) await setVolumeOwnership(dir, fsGroup, { readOnly: false, ...(fsGroupChangePolicy !== undefined ? { policy: fsGroupChangePolicy } : {}) });
}

/** A memory-backed directory for content kept off the disk (Secret and projected volumes), 0777 as Go's wrapped emptyDir. */
export async function setUpMemoryDir(mounter: Mounter, target: PodVolumeTarget): Promise<void> {
  await setUpEmptyDir(mounter, target, { medium: 'Memory' });
}
