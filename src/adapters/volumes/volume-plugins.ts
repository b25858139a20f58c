/**
 * The volume plugin manager (Go: pkg/volume's VolumePluginMgr and each plugin's SetUp/TearDown) over
 * the node: emptyDir and hostPath here, the API-backed plugins (configMap, secret, downwardAPI,
 * projected) through `content`, which writes their payload into the directory made for them.
 * Secret and projected content is kept on a tmpfs, never on disk, as Go wraps them in a
 * memory-backed emptyDir; configMap and downwardAPI content is on disk.
 * A claim (persistentVolumeClaim, generic ephemeral) is first resolved to its PV (claim-volumes.ts),
 * then set up by the PV's plugin: hostPath, local (a bind mount) or CSI (the `csi` port); the answer
 * names the PV (`persistent`), which its teardown is given back.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import { podDirectory, podVolumeDirectory } from '../../domain/pod/pod-paths.js';
import { podVolumeClaim, type PersistentVolumeMount } from '../../domain/volumes/claims.js';
import { volumePluginName, volumeSourceName, type PersistentVolumeRef, type PodVolumePlugin, type VolumePluginName } from '../../domain/volumes/pod-volumes.js';
import type { ClaimApi } from '../../ports/apiserver.js';
import type { CsiVolumePlugin } from '../../ports/csi-volumes.js';
import type { Payload, Volume } from '../../domain/volumes/sources.js';
import type { VolumePlugins, VolumeSetUpResult } from '../../ports/volumes.js';
import { makePodVolumeDirectory, setUpEmptyDir, setUpMemoryDir } from './empty-dir.js';
import { resolveClaim } from './claim-volumes.js';
import { checkHostPath } from './host-path.js';
import { setUpLocalVolume, volumeOperationError } from './local-volume.js';
import type { Mounter } from './mount-table.js';
import type { PodVolumeTarget } from './pod-confinement.js';
import { cleanupOrphanedPodDirectories, removePodDirectory, tearDownDirectory } from './pod-directories.js';
import { allOrFirstError } from './settled-calls.js';

/** An API-backed volume's content, fetched and not yet written. */
export interface VolumeContent {
  payload: Payload;
  /** When it must be fetched again (a token's refresh time, on the clock's scale). */
  refreshAtMs?: number;
}

/** An API-backed volume's content: fetched (the objects, a token), then written into its directory atomically. */
export interface VolumeContentWriter {
  /** Fetches what the volume holds, touching no disk (the pod is registered with the managers first). */
  fetch(pod: Pod, volume: Volume): Promise<VolumeContent>;
  /** Writes fetched content into `target.dir` (made already, below `target.podDir`) for `pod`'s fsGroup; `memoryBacked`: it is a tmpfs. */
  write(pod: Pod, target: PodVolumeTarget, content: VolumeContent, memoryBacked: boolean): Promise<{ changed: boolean; refreshAfterMs?: number }>;
  /** The directory was torn down: nothing is known of its content any more. */
  forget?(dir: string): void;
}

export interface VolumePluginOptions {
  rootDir: string;
  mounter: Mounter;
  content: VolumeContentWriter;
  /** The pod's directory is being removed: the managers drop its watches and tokens. */
  onPodGone?: (podUid: string) => void;
  /** Claims and PVs; absent standalone (a claim is then refused). */
  claims?: ClaimApi;
  /** The node's name, for a PV's node affinity. */
  nodeName?: string;
  /** A claim's CSI PV is set up and torn down here; absent, every CSI driver is unknown. */
  csi?: CsiVolumePlugin;
}

function volumeOf(pod: Pod, volumeName: string): Volume {
  const volume = (pod.spec.volumes ?? []).find((v) => v.name === volumeName);
  if (!volume) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `pod ${pod.metadata.namespace ?? 'default'}/${pod.metadata.name} has no volume "${volumeName}"`);
  return volume;
}

const onTmpfs = (plugin: VolumePluginName) => plugin === 'kubernetes.io/secret' || plugin === 'kubernetes.io/projected';

export function createVolumePlugins(opts: VolumePluginOptions): VolumePlugins {
  const { rootDir, mounter } = opts;
  const dirOf = (podUid: string, plugin: VolumePluginName, name: string) => podVolumeDirectory(rootDir, podUid, plugin, name);

  /** Where each volume set up by this process is (Go's actual state of world, for makeMounts). */
  const mounted = new Map<string, { hostPath: string; readOnly: boolean; uniqueVolumeName?: string }>();
  const key = (podUid: string, volumeName: string) => `${podUid}/${volumeName}`;

  async function setUpPersistent(pod: Pod, volumeName: string, pv: PersistentVolumeMount): Promise<VolumeSetUpResult> {
    const { ref, volume } = pv;
    if (volume.plugin === 'kubernetes.io/host-path') {
      try {
        await checkHostPath(volume.source);
      } catch (error) {
        throw volumeOperationError('MountVolume.SetUp', ref.pvName, (error as Error).message);
      }
      return { hostPath: volume.source.path, changed: false, persistent: ref };
    }
    if (volume.plugin === 'kubernetes.io/local-volume') {
      const dir = dirOf(pod.metadata.uid, 'kubernetes.io/local-volume', ref.pvName);
      await setUpLocalVolume(mounter, { dir, podDir: podDirectory(rootDir, pod.metadata.uid) }, pod, { pvName: ref.pvName, path: volume.source.path, readOnly: pv.readOnly, mountOptions: pv.mountOptions });
      return { hostPath: dir, changed: false, persistent: ref };
    }
    if (!opts.csi) {
      throw volumeOperationError('MountVolume.MountDevice', ref.pvName, `kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name ${volume.source.driver} not found in the list of registered CSI drivers`);
    }
    const answer = await opts.csi.setUpPersistent(pod, volumeName, { pvName: ref.pvName, source: volume.source, readOnly: pv.readOnly, mountOptions: pv.mountOptions, accessModes: pv.accessModes });
    return { ...answer, persistent: ref };
  }

  async function setUp(pod: Pod, volumeName: string): Promise<VolumeSetUpResult> {
    const volume = volumeOf(pod, volumeName);
    const claim = podVolumeClaim(pod, volume);
    if (claim !== undefined) {
      const pv = await resolveClaim({ ...(opts.claims ? { api: opts.claims } : {}), ...(opts.nodeName ? { nodeName: opts.nodeName } : {}) }, pod, volume, claim);
      const answer = await setUpPersistent(pod, volumeName, pv);
      mounted.set(key(pod.metadata.uid, volumeName), { hostPath: answer.hostPath, readOnly: pv.readOnly, ...(answer.uniqueVolumeName ? { uniqueVolumeName: answer.uniqueVolumeName } : {}) });
      return answer;
    }
    const plugin = volumePluginName(volume);
    if (plugin === undefined) {
      throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `no volume plugin matched volume "${volumeName}" (source "${volumeSourceName(volume)}")`);
    }
    if (plugin === 'kubernetes.io/host-path' && volume.hostPath) {
      await checkHostPath(volume.hostPath);
      return { hostPath: volume.hostPath.path, changed: false };
    }
    const dir = dirOf(pod.metadata.uid, plugin, volumeName);
    const target = { dir, podDir: podDirectory(rootDir, pod.metadata.uid) };
    if (plugin === 'kubernetes.io/empty-dir') {
      await setUpEmptyDir(mounter, target, volume.emptyDir ?? {}, pod.spec.securityContext?.fsGroup, pod.spec.securityContext?.fsGroupChangePolicy);
      return { hostPath: dir, changed: false };
    }
    // The content is fetched while the directory (and its tmpfs) is made: a token's round trip to
    // the API server overlaps the mount. Go fetches first; a failed fetch is reported first here too.
    const [fetched] = await allOrFirstError([
      opts.content.fetch(pod, volume),
      onTmpfs(plugin) ? setUpMemoryDir(mounter, target) : makePodVolumeDirectory(target, 0o777),
    ]);
    const written = await opts.content.write(pod, target, fetched, onTmpfs(plugin));
    return { hostPath: dir, changed: written.changed, ...(written.refreshAfterMs !== undefined ? { refreshAfterMs: written.refreshAfterMs } : {}) };
  }

  /** A claim's PV: by its plugin, in the directory named after the PV. */
  async function tearDownPersistent(podUid: string, pv: PersistentVolumeRef): Promise<void> {
    if (pv.plugin === 'kubernetes.io/host-path') return;
    if (pv.plugin === 'kubernetes.io/csi') {
      if (!opts.csi) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `kubernetes.io/csi: cannot tear down volume "${pv.pvName}": no CSI volume plugin`);
      await opts.csi.tearDown(podUid, pv.pvName);
      return;
    }
    await tearDownDirectory(mounter, dirOf(podUid, pv.plugin, pv.pvName));
  }

  async function tearDown(podUid: string, volumeName: string, plugin: PodVolumePlugin, persistent?: PersistentVolumeRef): Promise<void> {
    mounted.delete(key(podUid, volumeName));
    if (persistent) return tearDownPersistent(podUid, persistent);
    // hostPath's TearDown does nothing: the path is the node's. A claim never set up mounted nothing.
    if (plugin === null || plugin === 'kubernetes.io/host-path') return;
    const dir = dirOf(podUid, plugin, volumeName);
    opts.content.forget?.(dir);
    await tearDownDirectory(mounter, dir);
  }

  return {
    setUp: (pod, volumeName) => setUp(pod, volumeName),
    tearDown,
    mountedVolume: (podUid, volumeName) => {
      const found = mounted.get(key(podUid, volumeName));
      return found && { hostPath: found.hostPath, readOnly: found.readOnly };
    },
    volumesInUse: () => [...new Set([...mounted.values()].flatMap((m) => (m.uniqueVolumeName ? [m.uniqueVolumeName] : [])))].sort(),
    removePodDirectory: (podUid) => {
      opts.onPodGone?.(podUid);
      return removePodDirectory(mounter, rootDir, podUid);
    },
    cleanupOrphanedPodDirectories: (keep) => cleanupOrphanedPodDirectories(mounter, rootDir, keep),
  };
}
