/**
 * The volume plugins as the volume manager's effects see them (Go: the volume plugin manager's
 * SetUp / TearDown, and the kubelet's pod directory cleanup). Implemented over the node's file
 * system and mount table by src/adapters/volumes.
 */
import type { Pod } from '../domain/pod/types.js';
import type { ReconstructedVolume } from '../domain/volume-manager/reconstruction.js';
import type { PersistentVolumeRef, PodVolumePlugin } from '../domain/volumes/pod-volumes.js';

export interface VolumeSetUpResult {
  /** Where the volume is on the node (what a container bind-mounts). */
  hostPath: string;
  /** The content changed on disk. */
  changed: boolean;
  /** Set up again after this long: a projected token's refresh time. */
  refreshAfterMs?: number;
  /** The volume is a claim's PV (absent for a pod's own volume). */
  persistent?: PersistentVolumeRef;
  /**
   * Set only for a volume of an attachable plugin (Go's PluginIsAttachable: a CSI driver with
   * attachRequired; never hostPath or local): its unique volume name, which the node status reports
   * in `volumesInUse` while the volume is set up (`kubernetes.io/csi/<driver>^<volumeHandle>`).
   */
  uniqueVolumeName?: string;
  /**
   * Set up again on every pod sync (Go's RequiresRemount), known only once the set-up has read it:
   * a CSI volume whose CSIDriver has requiresRepublish.
   */
  requiresRemount?: boolean;
}

export interface PodDirectoryCleanup {
  removed: string[];
  /** Pod directories left in place, with why (a mount still under one, an I/O error). */
  kept: { podUid: string; reason: string }[];
}

export interface VolumePlugins {
  /** SetUp: idempotent; `remount` is a set-up of a volume already mounted (content refreshed only). */
  setUp(pod: Pod, volumeName: string, opts: { remount: boolean }): Promise<VolumeSetUpResult>;
  /**
   * TearDown: unmounts what the plugin mounted and removes the volume's directory. A claim's volume
   * (`plugin` null) is its PV's, named by `persistent`; without it nothing was set up.
   */
  tearDown(podUid: string, volumeName: string, plugin: PodVolumePlugin, persistent?: PersistentVolumeRef): Promise<void>;
  /**
   * Go's GetVolumesInUse: the unique names of the attachable volumes set up or reconstructed and
   * not yet torn down, sorted, without repeats; undefined until `reconstructVolumes` answered (Go
   * reports none before its reconciler has synced the states, so a volume mounted before a restart
   * is never reported as unused meanwhile).
   */
  volumesInUse(): string[] | undefined;
  /**
   * Go's reconstructVolumes, for the CSI volumes: every pod volume under `kubernetes.io~csi` whose
   * vol_data.json reads back; their PVs are in use from then on, until torn down.
   */
  reconstructVolumes(): Promise<ReconstructedVolume[]>;
  /** A reconstructed volume unpublished, then unstaged once no pod publishes it; rejects while its driver is not registered. */
  tearDownReconstructedVolume(volume: ReconstructedVolume): Promise<void>;
  /** Where a volume set up by this process is, and whether containers must mount it read-only (Go's GetMountedVolumesForPod). */
  mountedVolume(podUid: string, volumeName: string): { hostPath: string; readOnly: boolean } | undefined;
  /** Removes <rootDir>/pods/<uid>, never through a mount point that is still mounted. */
  removePodDirectory(podUid: string): Promise<PodDirectoryCleanup>;
  /** Every pod directory whose uid is not in `keep` (and is in `only`, when given): its volumes torn down, then removed as above. */
  cleanupOrphanedPodDirectories(keep: readonly string[], only?: readonly string[]): Promise<PodDirectoryCleanup>;
}
