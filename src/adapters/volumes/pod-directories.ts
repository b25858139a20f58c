/**
 * Tearing volumes down and removing pod directories without ever deleting through a mount (Go:
 * the volume plugins' TearDown, and kubelet_volumes.go cleanupOrphanedPodDirs with its checks that
 * no volume is still mounted). A recursive delete follows no rule about mount points, so each one
 * first looks at the mount table: what it mounted itself (a tmpfs) it unmounts, anything else still
 * mounted below keeps the directory in place, named in the answer.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import { escapedPluginName, podDirectory, podsDirectory, podVolumesDirectory } from '../../domain/pod/pod-paths.js';
import type { VolumePluginName } from '../../domain/volumes/pod-volumes.js';
import type { CsiVolumePlugin } from '../../ports/csi-volumes.js';
import type { PodDirectoryCleanup } from '../../ports/volumes.js';
import { mountsUnder, type Mounter } from './mount-table.js';
import { removeAllOneFilesystem } from './remove-one-filesystem.js';

/** Unmounts `dir` if it is a mount point, then removes it, unless something is still mounted below it. */
export async function tearDownDirectory(mounter: Mounter, dir: string): Promise<void> {
  const base = dir.replace(/\/+$/, '');
  if (mountsUnder(await mounter.mountPoints(), base).includes(base)) await mounter.unmount(base);
  const left = mountsUnder(await mounter.mountPoints(), base);
  if (left.length > 0) {
    throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `cannot remove ${base}: still mounted: ${left.join(', ')}`);
  }
  await removeAllOneFilesystem(base);
}

/** The names in `<rootDir>/pods`: the only pod directories the kubelet ever deletes. */
async function listPodDirectories(rootDir: string): Promise<string[]> {
  const podsDir = podsDirectory(rootDir);
  try {
    if ((await lstat(podsDir)).isSymbolicLink()) throw new KubeletError('KLT_ERR_PATH_UNSAFE', `${podsDir} is a symlink: the kubelet removes nothing through it`);
    return await readdir(podsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Removes `<rootDir>/pods/<uid>` when listing `<rootDir>/pods` finds it: a symlink there is unlinked
 * (never followed); a directory goes unless something is mounted below it, and never across a mount.
 */
export async function removePodDirectory(mounter: Mounter, rootDir: string, podUid: string): Promise<PodDirectoryCleanup> {
  try {
    podDirectory(rootDir, podUid);
    if (!(await listPodDirectories(rootDir)).includes(podUid)) return { removed: [podUid], kept: [] };
  } catch (error) {
    return { removed: [], kept: [{ podUid, reason: (error as Error).message }] };
  }
  return removeListedPodDirectory(mounter, rootDir, podUid);
}

/** Removes the pod directory `uid`, a name listing `<rootDir>/pods` gave. */
async function removeListedPodDirectory(mounter: Mounter, rootDir: string, podUid: string): Promise<PodDirectoryCleanup> {
  try {
    const dir = podDirectory(rootDir, podUid);
    if ((await lstat(dir)).isSymbolicLink()) {
      await unlink(dir);
      return { removed: [podUid], kept: [] };
    }
    const left = mountsUnder(await mounter.mountPoints(), dir);
    if (left.length > 0) return { removed: [], kept: [{ podUid, reason: `still mounted: ${left.join(', ')}` }] };
    await removeAllOneFilesystem(dir);
    return { removed: [podUid], kept: [] };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { removed: [podUid], kept: [] };
    return { removed: [], kept: [{ podUid, reason: (error as Error).message }] };
  }
}

/**
 * The plugins whose volume directory the kubelet itself mounts on: a tmpfs (emptyDir of medium
 * Memory, secret, projected) or a local PV's bind mount. Unmounting one loses nothing: the tmpfs
 * content belongs to the pod that is gone, the local PV's data stays at its path.
 */
const ownMountPlugins: readonly string[] = (['kubernetes.io/empty-dir', 'kubernetes.io/secret', 'kubernetes.io/projected', 'kubernetes.io/local-volume'] satisfies VolumePluginName[]).map(escapedPluginName);

/** `<volumesDir><escaped plugin>/<name>` of one of those plugins: where the kubelet itself mounts. */
function isOwnVolumeMount(volumesDir: string, point: string): boolean {
  if (!point.startsWith(volumesDir)) return false;
  const [plugin, name, ...rest] = point.slice(volumesDir.length).split('/');
  return plugin !== undefined && ownMountPlugins.includes(plugin) && name !== undefined && name !== '' && rest.length === 0;
}

/**
 * The CSI volumes left in an orphaned pod directory, torn down through the CSI plugin from their
 * vol_data.json (Go reconstructs them and unmounts them the same way): the driver unpublishes
 * them, and unstages what no other pod publishes.
 */
async function tearDownCsiVolumes(csi: Pick<CsiVolumePlugin, 'tearDown'>, rootDir: string, podUid: string): Promise<void> {
  let names: string[];
  try {
    // A symlink listed under <root>/pods is never followed: it is only unlinked.
    if ((await lstat(podDirectory(rootDir, podUid))).isSymbolicLink()) return;
    names = await readdir(`${podVolumesDirectory(rootDir, podUid)}/${escapedPluginName('kubernetes.io/csi')}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names.sort()) await csi.tearDown(podUid, name);
}

/**
 * Pod directories of pods the kubelet no longer has (after a restart, say), or only those in `only`:
 * their CSI volumes torn down through the CSI plugin (when there is one; the volume manager tears
 * down those it reconstructed itself, with retries, and keeps their pods out of this sweep), the volumes the kubelet mounted under
 * `<podDir>/volumes` (the tmpfs of emptyDir, secret and projected, a local PV's bind mount; Go
 * reconstructs them from the disk and the mount table) unmounted, then the directory goes as above.
 * Any other mount below it, elsewhere under `volumes/` included, keeps it.
 */
export async function cleanupOrphanedPodDirectories(
  mounter: Mounter, rootDir: string, keep: readonly string[], csi?: Pick<CsiVolumePlugin, 'tearDown'>, only?: readonly string[],
): Promise<PodDirectoryCleanup> {
  const listed = await listPodDirectories(rootDir);
  const entries = only ? listed.filter((uid) => only.includes(uid)) : listed;
  const keepSet = new Set(keep);
  const result: PodDirectoryCleanup = { removed: [], kept: [] };
  for (const uid of entries.filter((e) => !keepSet.has(e)).sort()) {
    try {
      if (csi) await tearDownCsiVolumes(csi, rootDir, uid);
      const volumesDir = `${podVolumesDirectory(rootDir, uid)}/`;
      for (const point of mountsUnder(await mounter.mountPoints(), volumesDir.slice(0, -1)).filter((p) => isOwnVolumeMount(volumesDir, p)).reverse()) {
        await mounter.unmount(point);
      }
    } catch (error) {
      result.kept.push({ podUid: uid, reason: (error as Error).message });
      continue;
    }
    const outcome = await removeListedPodDirectory(mounter, rootDir, uid);
    result.removed.push(...outcome.removed);
    result.kept.push(...outcome.kept);
  }
  return result;
}
