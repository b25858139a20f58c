/**
 * Where the CSI volume plugin keeps a volume on the node, and the names it derives from a volume
 * (Go: pkg/volume/csi's makeDeviceMountPath, getTargetPath, getAttachmentName and makeVolumeHandle).
 * A PV is staged once per node at `<root>/plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount`
 * and published per pod at `<root>/pods/<uid>/volumes/kubernetes.io~csi/<name>/mount`; each has
 * its `vol_data.json` beside, so teardown works from the disk alone.
 */
import { createHash } from 'node:crypto';
import { podVolumeDirectory, safeSegment } from '../pod/pod-paths.js';

export const csiPluginName = 'kubernetes.io/csi' as const;
export const volDataFileName = 'vol_data.json';

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Where a pod's CSI volume `name` lives: its data directory (vol_data.json) and the publish target below it. */
export function podCsiVolumePaths(rootDir: string, podUid: string, name: string): { dataDir: string; mountPath: string; volDataPath: string } {
  const dataDir = podVolumeDirectory(rootDir, podUid, csiPluginName, name);
  return { dataDir, mountPath: `${dataDir}/mount`, volDataPath: `${dataDir}/${volDataFileName}` };
}

/** The driver's staging directory of a volume handle: its data directory and the staging target (globalmount) below it. */
export function globalMountPaths(rootDir: string, driver: string, volumeHandle: string): { dataDir: string; stagingPath: string; volDataPath: string } {
  const dataDir = `${rootDir.replace(/\/+$/, '')}/plugins/${csiPluginName}/${safeSegment('CSI driver name', driver)}/${sha256Hex(volumeHandle)}`;
  return { dataDir, stagingPath: `${dataDir}/globalmount`, volDataPath: `${dataDir}/${volDataFileName}` };
}

/** The VolumeAttachment the attach/detach controller makes for a volume on a node: `csi-<sha256(handle+driver+node)>`. */
export function volumeAttachmentName(volumeHandle: string, driver: string, nodeName: string): string {
  return `csi-${sha256Hex(`${volumeHandle}${driver}${nodeName}`)}`;
}

/** An inline (Ephemeral) volume's id: `csi-<sha256(podUid+volumeName)>`, unique per pod and volume. */
export function inlineVolumeHandle(podUid: string, volumeName: string): string {
  return `csi-${sha256Hex(`${podUid}${volumeName}`)}`;
}
