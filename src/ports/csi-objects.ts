/**
 * The API objects the CSI volume plugin reads (Go: the kubelet's CSIDriver lister and its client's
 * VolumeAttachment and Secret GETs): each undefined when the object does not exist; any other
 * failure rejects. A Secret's values are credentials: never logged or journaled.
 */
import type { VolumeAttachmentObject } from '../domain/csi/attachment.js';
import type { CsiDriverSpec } from '../domain/csi/csi-driver.js';
import type { NodeObject, VolumeObject } from './apiserver.js';

export interface CsiObjectApi {
  /** storage.k8s.io/v1 csidrivers/<name>: its spec. */
  getCsiDriver(name: string): Promise<CsiDriverSpec | undefined>;
  /** storage.k8s.io/v1 volumeattachments/<name>. */
  getVolumeAttachment(name: string): Promise<VolumeAttachmentObject | undefined>;
  /** v1 secrets/<name> in `namespace` (data in base64, as the API carries it). */
  getSecret(namespace: string, name: string): Promise<VolumeObject | undefined>;
  /** v1 nodes/<name>: its `status.volumesAttached`, which an attachable volume waits for. */
  getNode(name: string): Promise<NodeObject>;
}
