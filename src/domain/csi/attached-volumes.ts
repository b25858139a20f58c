/**
 * An attachable CSI volume as the node status carries it (Go v1.26: the CSI plugin's GetVolumeName,
 * `<driver>^<volumeHandle>`, prefixed with the plugin name by GetUniqueVolumeNameFromSpec; and the
 * operation generator's VerifyControllerAttachedVolume, which finds the volume in the Node's
 * `status.volumesAttached` before the kubelet stages it).
 */
import type { NodeObject } from '../node-status/api-objects.js';

/** The name the node reports in `volumesInUse` and the attach/detach controller in `volumesAttached`. */
export const csiUniqueVolumeName = (driver: string, volumeHandle: string) => `kubernetes.io/csi/${driver}^${volumeHandle}`;

/** The attach/detach controller has put the volume in the Node's `status.volumesAttached`. */
export function attachedInNodeStatus(node: NodeObject, uniqueVolumeName: string): boolean {
  return (node.status?.volumesAttached ?? []).some((v) => v.name === uniqueVolumeName);
}

/** The verification's failure (Go's detailed text, trailing space included); the set-up backs off and retries. */
export function notAttachedMessage(specName: string, uniqueVolumeName: string, pod: { name: string; uid: string }): string {
  return `Volume not attached according to node status for volume "${specName}" (UniqueName: "${uniqueVolumeName}") pod "${pod.name}" (UID: "${pod.uid}") `;
}

/** The Node could not be read: the verification fails and is retried. */
export function nodeGetErrorMessage(specName: string, uniqueVolumeName: string, pod: { name: string; uid: string }, error: string): string {
  return `VerifyControllerAttachedVolume failed fetching node from API server for volume "${specName}" (UniqueName: "${uniqueVolumeName}") pod "${pod.name}" (UID: "${pod.uid}") : ${error}`;
}
