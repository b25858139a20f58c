/**
 * CSI volumes as the volume plugins see them (Go: pkg/volume/csi's csiPlugin, csiMountMgr and
 * csiAttacher's MountDevice for one pod volume). A claim's PV with a `csi` source and a pod's inline
 * `csi` volume both come here; the claim has been resolved to its PV before (claims are not this
 * port's business). Implemented over the registered drivers' Node services by src/adapters/csi.
 */
import type { Pod } from '../domain/pod/types.js';
import type { VolumeSetUpResult } from './volumes.js';

export interface SecretReference { name?: string; namespace?: string }

/** A PersistentVolume's `spec.csi`. */
export interface CsiPersistentVolumeSource {
  driver: string;
  volumeHandle: string;
  readOnly?: boolean;
  fsType?: string;
  volumeAttributes?: Record<string, string>;
  nodeStageSecretRef?: SecretReference;
  nodePublishSecretRef?: SecretReference;
  controllerPublishSecretRef?: SecretReference;
}

/** A claim's PV, resolved: what NodeStage/NodePublish are asked with. */
export interface CsiPersistentVolume {
  pvName: string;
  source: CsiPersistentVolumeSource;
  /** The pod's claim is read-only, or the PV's source is. */
  readOnly: boolean;
  mountOptions: string[];
  accessModes: string[];
}

/** One kind of usage NodeGetVolumeStats answers: bytes or inodes. */
export interface CsiVolumeUsage {
  bytes?: { available: number; total: number; used: number };
  inodes?: { available: number; total: number; used: number };
  /** VOLUME_CONDITION: the driver says the volume is abnormal, and why. */
  abnormal?: { message: string };
}

export interface CsiVolumePlugin {
  /**
   * SetUp of a claim's CSI PV: waits for its VolumeAttachment when the driver requires attach,
   * stages it (NodeStageVolume, when the driver has STAGE_UNSTAGE_VOLUME) at the global mount path,
   * publishes it (NodePublishVolume) at `<root>/pods/<uid>/volumes/kubernetes.io~csi/<pvName>/mount`,
   * with `vol_data.json` beside. Idempotent. When the driver requires attach, the volume's unique
   * name goes to `reportInUse` first (the node reports it in use before it is mounted, as Go's
   * desired state does), then the Node's `status.volumesAttached` must list it before staging.
   * A driver with requiresRepublish is published again at each set-up (the answer says
   * `requiresRemount`).
   */
  setUpPersistent(pod: Pod, volumeName: string, pv: CsiPersistentVolume, reportInUse?: (uniqueVolumeName: string) => void): Promise<VolumeSetUpResult>;
  /** SetUp of a pod's inline `csi` volume (the Ephemeral lifecycle): NodePublishVolume at `kubernetes.io~csi/<volumeName>/mount`, again at each set-up with requiresRepublish. */
  setUpInline(pod: Pod, volumeName: string): Promise<VolumeSetUpResult>;
  /**
   * TearDown of `<root>/pods/<uid>/volumes/kubernetes.io~csi/<dirName>`, from its vol_data.json alone
   * (so it also works for a volume set up before a restart): NodeUnpublishVolume, then
   * NodeUnstageVolume once no pod on the node publishes the volume. Rejects while the driver is not
   * registered; the volume machine retries.
   */
  tearDown(podUid: string, dirName: string): Promise<void>;
  /**
   * UnmountDevice alone: NodeUnstageVolume of the staged volume once no pod publishes it, nothing
   * when it is not staged. A teardown whose unstaging failed after the unpublish left no
   * vol_data.json to find it by: this finishes it.
   */
  tearDownDevice(driverName: string, volumeHandle: string): Promise<void>;
  /** NodeGetVolumeStats of a published volume when its driver has GET_VOLUME_STATS; undefined otherwise. */
  volumeStats(podUid: string, dirName: string): Promise<CsiVolumeUsage | undefined>;
}
