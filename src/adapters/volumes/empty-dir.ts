/**
 * emptyDir (Go: pkg/volume/emptydir): a directory under the pod's volume directory, world-writable
 * (0777, so a container of any user can use it); `medium: Memory` mounts a tmpfs there, sized by
 * `sizeLimit` when given. A set-up after a kubelet restart finds the tmpfs still mounted and keeps
 * it (and its content).
 *
 * The modes as Go leaves them: the directory is chmodded to 0777 only when its permission bits
 * differ (setupDir), before any tmpfs is mounted on it; the tmpfs is mounted without a mode, so its
 * root keeps the kernel's 1777 (the sticky bit, as /tmp). With the pod's fsGroup, SetVolumeOwnership
 * (volume-ownership.ts) adds the group, group read-write, and on directories search and setgid,
 * keeping the bits there: a disk volume ends 2777, a tmpfs one 3777; under fsGroupChangePolicy
 * OnRootMismatch only when the root lacks them.
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
  const made = await mkdir(dir, { recursive: true, mode: 0o777 });
  await assertBelowPodDirectory(target);
  // A directory made just now has the umask's mode; one found in place keeps its setgid and sticky
  // bits when its permission bits are right already.
  if (made !== undefined || ((await lstat(dir)).mode & 0o777) !== 0o777) await chmod(dir, 0o777);
  // A directory made just now is no mount point, so it is not checked.
  if (medium === 'Memory' && (made !== undefined || !(await isMountPoint(dir)))) {
    const sizeBytes = source.sizeLimit !== undefined ? Number(quantityValue(parseQuantity(source.sizeLimit))) : undefined;
    await mounter.mountTmpfs(dir, sizeBytes !== undefined && sizeBytes > 0 ? { sizeBytes } : {});
  }
  if (fsGroup !== undefined) await setVolumeOwnership(dir, fsGroup, { readOnly: false, ...(fsGroupChangePolicy !== undefined ? { policy: fsGroupChangePolicy } : {}) });
}

/** A memory-backed directory for content kept off the disk (Secret and projected volumes), 1777 as Go's wrapped emptyDir. */
export async function setUpMemoryDir(mounter: Mounter, target: PodVolumeTarget): Promise<void> {
  await setUpEmptyDir(mounter, target, { medium: 'Memory' });
}
