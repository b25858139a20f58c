/**
 * Tearing volumes down and removing pod directories without ever deleting through a mount (Go:
 * the volume plugins' TearDown, and kubelet_volumes.go cleanupOrphanedPodDirs with its checks that
 * no volume is still mounted). A recursive delete follows no rule about mount points, so each one
 * first looks at the mount table: what it mounted itself (a tmpfs) it unmounts, anything else still
 * mounted below keeps the directory in place, named in the answer.
 */
import { readdir, rm } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import { escapedPluginName, podDirectory, type VolumePluginName } from '../../domain/volumes/pod-volumes.js';
import type { PodDirectoryCleanup } from '../../ports/volumes.js';
import { mountsUnder, type Mounter } from './mount-table.js';

/** Unmounts `dir` if it is a mount point, then removes it, unless something is still mounted below it. */
export async function tearDownDirectory(mounter: Mounter, dir: string): Promise<void> {
  const base = dir.replace(/\/+$/, '');
  if (mountsUnder(await mounter.mountPoints(), base).includes(base)) await mounter.unmount(base);
  const left = mountsUnder(await mounter.mountPoints(), base);
  if (left.length > 0) {
    throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `cannot remove ${base}: still mounted: ${left.join(', ')}`);
  }
  await rm(base, { recursive: true, force: true });
}

export async function removePodDirectory(mounter: Mounter, rootDir: string, podUid: string): Promise<PodDirectoryCleanup> {
  const dir = podDirectory(rootDir, podUid);
  const left = mountsUnder(await mounter.mountPoints(), dir);
  if (left.length > 0) return { removed: [], kept: [{ podUid, reason: `still mounted: ${left.join(', ')}` }] };
  try {
    await rm(dir, { recursive: true, force: true });
    return { removed: [podUid], kept: [] };
  } catch (error) {
    return { removed: [], kept: [{ podUid, reason: (error as Error).message }] };
  }
}

/** The plugins whose volume directory the kubelet mounts a tmpfs on (emptyDir of medium Memory, secret, projected). */
const memoryBackedPlugins: readonly string[] = (['kubernetes.io/empty-dir', 'kubernetes.io/secret', 'kubernetes.io/projected'] satisfies VolumePluginName[]).map(escapedPluginName);

/** `<volumesDir><escaped plugin>/<name>` of a memory-backed plugin: where the kubelet itself mounts. */
function isOwnVolumeMount(volumesDir: string, point: string): boolean {
  if (!point.startsWith(volumesDir)) return false;
  const [plugin, name, ...rest] = point.slice(volumesDir.length).split('/');
  return plugin !== undefined && memoryBackedPlugins.includes(plugin) && name !== undefined && name !== '' && rest.length === 0;
}

/**
 * Pod directories of pods the kubelet no longer has (after a restart, say): the memory-backed
 * volumes the kubelet mounted under `<podDir>/volumes` (the volume directories of emptyDir,
 * secret and projected) are unmounted, then the directory goes as above. Any other mount below it,
 * elsewhere under `volumes/` included, keeps it.
 */
export async function cleanupOrphanedPodDirectories(mounter: Mounter, rootDir: string, keep: readonly string[]): Promise<PodDirectoryCleanup> {
  const podsDir = `${rootDir.replace(/\/+$/, '')}/pods`;
  const entries = await readdir(podsDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const keepSet = new Set(keep);
  const result: PodDirectoryCleanup = { removed: [], kept: [] };
  for (const uid of entries.filter((e) => !keepSet.has(e)).sort()) {
    const volumesDir = `${podDirectory(rootDir, uid)}/volumes/`;
    try {
      for (const point of mountsUnder(await mounter.mountPoints(), volumesDir.slice(0, -1)).filter((p) => isOwnVolumeMount(volumesDir, p)).reverse()) {
        await mounter.unmount(point);
      }
    } catch (error) {
      result.kept.push({ podUid: uid, reason: (error as Error).message });
      continue;
    }
    const outcome = await removePodDirectory(mounter, rootDir, uid);
    result.removed.push(...outcome.removed);
    result.kept.push(...outcome.kept);
  }
  return result;
}
