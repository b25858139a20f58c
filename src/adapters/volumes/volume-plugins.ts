/**
 * The volume plugin manager (Go: pkg/volume's VolumePluginMgr and each plugin's SetUp/TearDown) over
 * the node: emptyDir and hostPath here, the API-backed plugins (configMap, secret, downwardAPI,
 * projected) through `content`, which writes their payload into the directory made for them.
 * Secret and projected content is kept on a tmpfs, never on disk, as Go wraps them in a
 * memory-backed emptyDir; configMap and downwardAPI content is on disk.
 * A claim (persistentVolumeClaim, generic ephemeral) is first resolved to its PV (persistent-volumes.ts),
 * then set up by the PV's plugin: hostPath, local (a bind mount) or CSI (the `csi` port); the answer
 * names the PV (`persistent`), which its teardown is given back.
 */
import { unregisteredDriverMessage } from '../../domain/csi/csi-driver.js';
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import { podDirectory, podVolumeDirectory } from '../../domain/pod/pod-paths.js';
import { podVolumeClaim } from '../../domain/volumes/claims.js';
import { volumePluginName, volumeSourceName, type PersistentVolumeRef, type PodVolumePlugin, type VolumePluginName } from '../../domain/volumes/pod-volumes.js';
import type { ClaimApi } from '../../ports/apiserver.js';
import type { Payload, Volume } from '../../domain/volumes/sources.js';
import type { CsiVolumePlugin } from '../../ports/csi-volumes.js';
import type { VolumePlugins, VolumeSetUpResult } from '../../ports/volumes.js';
import type { ReconstructedVolume } from '../../domain/volume-manager/reconstruction.js';
import { makePodVolumeDirectory, setUpEmptyDir, setUpMemoryDir } from './empty-dir.js';
import { checkHostPath } from './host-path.js';
import type { Mounter } from './mount-table.js';
import type { PodVolumeTarget } from './pod-confinement.js';
import { createPersistentVolumes } from './persistent-volumes.js';
import { cleanupOrphanedPodDirectories, removePodDirectory, tearDownDirectory } from './pod-directories.js';
import { reconstructCsiVolumes } from './reconstruct-volumes.js';
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
  /** CSI volumes: a claim's CSI PV and a pod's inline `csi` volume; absent, every CSI driver is unknown. */
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
  const mounted = new Map<string, { hostPath: string; readOnly: boolean }>();
  const key = (podUid: string, volumeName: string) => `${podUid}/${volumeName}`;
  /**
   * The unique names of attachable volumes, from the first set-up that named one until teardown:
   * reported in use before they are attached or mounted, as Go reports its desired state.
   */
  const inUse = new Map<string, string>();
  /**
   * The unique names of the volumes found on disk at start, by `<podUid>/<dirName>`, until their
   * teardown (the reconstructed one, or the pod's own when it still had the volume) succeeds.
   * Nothing is reported before the scan ran.
   */
  const reconstructedInUse = new Map<string, string>();
  let reconstructed = false;
  const persistent = createPersistentVolumes({
    rootDir, mounter, ...(opts.claims ? { claims: opts.claims } : {}), ...(opts.nodeName ? { nodeName: opts.nodeName } : {}), ...(opts.csi ? { csi: opts.csi } : {}),
  });

  async function setUp(pod: Pod, volumeName: string): Promise<VolumeSetUpResult> {
    const volume = volumeOf(pod, volumeName);
    const claim = podVolumeClaim(pod, volume);
    if (claim !== undefined) {
      const { answer, readOnly } = await persistent.setUp(pod, volume, claim, (name) => inUse.set(key(pod.metadata.uid, volumeName), name));
      mounted.set(key(pod.metadata.uid, volumeName), { hostPath: answer.hostPath, readOnly });
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
    if (plugin === 'kubernetes.io/csi' && volume.csi) {
      if (!opts.csi) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: ${unregisteredDriverMessage(volume.csi.driver)}`);
      return opts.csi.setUpInline(pod, volumeName);
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

  /** An attachable volume stays in use until its teardown succeeds (Go: until the actual state has it unmounted). */
  async function tearDown(podUid: string, volumeName: string, plugin: PodVolumePlugin, pv?: PersistentVolumeRef): Promise<void> {
    await tearDownVolume(podUid, volumeName, plugin, pv);
    inUse.delete(key(podUid, volumeName));
    // A CSI volume's directory is named after its PV, or after the pod's volume when inline.
    reconstructedInUse.delete(key(podUid, pv?.pvName ?? volumeName));
  }

  async function reconstructVolumes(): Promise<ReconstructedVolume[]> {
    try {
      const volumes = await reconstructCsiVolumes(rootDir);
      for (const v of volumes) if (v.uniqueVolumeName !== undefined) reconstructedInUse.set(key(v.podUid, v.dirName), v.uniqueVolumeName);
      return volumes;
    } finally {
      reconstructed = true;
    }
  }

  async function tearDownReconstructedVolume(v: ReconstructedVolume): Promise<void> {
    if (!opts.csi) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `kubernetes.io/csi: no CSI volume plugin: cannot tear down ${dirOf(v.podUid, 'kubernetes.io/csi', v.dirName)}`);
    await opts.csi.tearDown(v.podUid, v.dirName);
    if (v.uniqueVolumeName !== undefined) await opts.csi.tearDownDevice(v.driverName, v.volumeHandle);
    reconstructedInUse.delete(key(v.podUid, v.dirName));
  }

  async function tearDownVolume(podUid: string, volumeName: string, plugin: PodVolumePlugin, pv?: PersistentVolumeRef): Promise<void> {
    mounted.delete(key(podUid, volumeName));
    if (pv) return persistent.tearDown(podUid, pv);
    // hostPath's TearDown does nothing: the path is the node's. A claim never set up mounted nothing.
    if (plugin === null || plugin === 'kubernetes.io/host-path') return;
    // An inline CSI volume's directory is named in its vol_data.json: the CSI plugin tears it down from there.
    if (plugin === 'kubernetes.io/csi') {
      if (!opts.csi) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `kubernetes.io/csi: no CSI volume plugin: cannot tear down ${dirOf(podUid, plugin, volumeName)}`);
      return opts.csi.tearDown(podUid, volumeName);
    }
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
    volumesInUse: () => (reconstructed ? [...new Set([...inUse.values(), ...reconstructedInUse.values()])].sort() : undefined),
    reconstructVolumes,
    tearDownReconstructedVolume,
    removePodDirectory: (podUid) => {
      opts.onPodGone?.(podUid);
      return removePodDirectory(mounter, rootDir, podUid);
    },
    cleanupOrphanedPodDirectories: (keep, only) => cleanupOrphanedPodDirectories(mounter, rootDir, keep, opts.csi, only),
  };
}
