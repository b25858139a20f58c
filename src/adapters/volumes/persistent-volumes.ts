/**
 * A claim's volume (Go: the populator's createVolumeSpec, then the PV's plugin): the claim resolved
 * to its PV (claim-volumes.ts), then set up by the PV's plugin — hostPath (its path, checked),
 * local (a bind mount, local-volume.ts; a Block PV a symlink to its device, block-volume-map.ts) or CSI (the `csi` port) — and torn down the same way from
 * the PV the set-up named. Failures of the PV plugins are Go's whole event texts, naming the PV.
 */
import { unregisteredDriverMessage } from '../../domain/csi/csi-driver.js';
import { KubeletError } from '../../domain/errors.js';
import { podDirectory, podVolumeDevicePath, podVolumeDirectory } from '../../domain/pod/pod-paths.js';
import type { Pod } from '../../domain/pod/types.js';
import type { PersistentVolumeMount, PodVolumeClaim } from '../../domain/volumes/claims.js';
import type { PersistentVolumeRef } from '../../domain/volumes/pod-volumes.js';
import type { Volume } from '../../domain/volumes/sources.js';
import type { ClaimApi } from '../../ports/apiserver.js';
import type { CsiVolumePlugin } from '../../ports/csi-volumes.js';
import type { VolumeSetUpResult } from '../../ports/volumes.js';
import { resolveClaim } from './claim-volumes.js';
import { mapBlockVolume, unmapBlockVolume } from './block-volume-map.js';
import { checkHostPath } from './host-path.js';
import { setUpLocalVolume, volumeOperationError } from './local-volume.js';
import type { Mounter } from './mount-table.js';
import { tearDownDirectory } from './pod-directories.js';

export interface PersistentVolumeDeps {
  rootDir: string;
  mounter: Mounter;
  claims?: ClaimApi;
  nodeName?: string;
  csi?: CsiVolumePlugin;
}

export function createPersistentVolumes(deps: PersistentVolumeDeps) {
  const { rootDir, mounter } = deps;

  async function setUpVolume(pod: Pod, volumeName: string, pv: PersistentVolumeMount, reportInUse?: (uniqueVolumeName: string) => void): Promise<VolumeSetUpResult> {
    const { ref, volume } = pv;
    if (volume.plugin === 'kubernetes.io/host-path') {
      try {
        await checkHostPath(volume.source);
      } catch (error) {
        throw volumeOperationError('MountVolume.SetUp', ref.pvName, (error as Error).message);
      }
      return { hostPath: volume.source.path, changed: false, persistent: ref };
    }
    if (volume.plugin === 'kubernetes.io/local-volume' && volume.block) {
      const link = podVolumeDevicePath(rootDir, pod.metadata.uid, 'kubernetes.io/local-volume', ref.pvName);
      await mapBlockVolume({ pvName: ref.pvName, devicePath: volume.source.path, link, podDir: podDirectory(rootDir, pod.metadata.uid) });
      return { hostPath: link, changed: false, persistent: ref };
    }
    if (volume.plugin === 'kubernetes.io/local-volume') {
      const dir = podVolumeDirectory(rootDir, pod.metadata.uid, 'kubernetes.io/local-volume', ref.pvName);
      await setUpLocalVolume(mounter, { dir, podDir: podDirectory(rootDir, pod.metadata.uid) }, pod, { pvName: ref.pvName, path: volume.source.path, readOnly: pv.readOnly, mountOptions: pv.mountOptions });
      return { hostPath: dir, changed: false, persistent: ref };
    }
    if (!deps.csi) {
      throw volumeOperationError('MountVolume.MountDevice', ref.pvName, `kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: ${unregisteredDriverMessage(volume.source.driver)}`);
    }
    const answer = await deps.csi.setUpPersistent(pod, volumeName, { pvName: ref.pvName, source: volume.source, readOnly: pv.readOnly, mountOptions: pv.mountOptions, accessModes: pv.accessModes }, reportInUse);
    return { ...answer, persistent: ref };
  }

  return {
    /**
     * SetUp of the claim's PV: the answer names it; `readOnly` says whether containers must mount it
     * so. An attachable PV's unique name goes to `reportInUse` before it is attached or mounted.
     */
    async setUp(pod: Pod, volume: Volume, claim: PodVolumeClaim, reportInUse?: (uniqueVolumeName: string) => void): Promise<{ answer: VolumeSetUpResult; readOnly: boolean }> {
      const pv = await resolveClaim({ ...(deps.claims ? { api: deps.claims } : {}), ...(deps.nodeName ? { nodeName: deps.nodeName } : {}) }, pod, volume, claim);
      return { answer: await setUpVolume(pod, volume.name, pv, reportInUse), readOnly: pv.readOnly };
    },
    /** TearDown of the PV a set-up named: hostPath leaves the node's path alone. */
    async tearDown(podUid: string, pv: PersistentVolumeRef): Promise<void> {
      if (pv.plugin === 'kubernetes.io/host-path') return;
      if (pv.block) return unmapBlockVolume(podVolumeDevicePath(rootDir, podUid, pv.plugin, pv.pvName));
      if (pv.plugin === 'kubernetes.io/csi') {
        if (!deps.csi) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `kubernetes.io/csi: cannot tear down volume "${pv.pvName}": no CSI volume plugin`);
        await deps.csi.tearDown(podUid, pv.pvName);
        return;
      }
      await tearDownDirectory(mounter, podVolumeDirectory(rootDir, podUid, pv.plugin, pv.pvName));
    },
  };
}
