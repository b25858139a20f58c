/**
 * A published CSI volume's usage (Go v1.26: csi_metrics.go GetMetrics): NodeGetVolumeStats of the
 * publish target when the driver has GET_VOLUME_STATS, bytes and inodes as it reports them, and
 * the volume's condition when it also has VOLUME_CONDITION.
 */
import { podCsiVolumePaths } from '../../domain/csi/csi-paths.js';
import type { CsiVolumeUsage } from '../../ports/csi-volumes.js';
import { csiCallTimeoutMs, type CsiNodeClients } from './csi-node-client-types.js';
import { checkEntries, MAX_VOLUME_USAGE_ENTRIES } from './plugin-answer-bounds.js';
import { readPodVolData } from './vol-data-files.js';

export async function csiVolumeStats(clients: CsiNodeClients, rootDir: string, podUid: string, dirName: string): Promise<CsiVolumeUsage | undefined> {
  const paths = podCsiVolumePaths(rootDir, podUid, dirName);
  const data = await readPodVolData(paths.volDataPath);
  const client = clients.get(data.driverName);
  const capabilities = await client.capabilities();
  if (!capabilities.has('GET_VOLUME_STATS')) return undefined;
  const answer = await client.call.NodeGetVolumeStats({ volume_id: data.volumeHandle, volume_path: paths.mountPath }, csiCallTimeoutMs);
  checkEntries({ code: 'KLT_ERR_VOLUME_MOUNT', peer: `CSI driver ${data.driverName}`, call: 'NodeGetVolumeStats' }, 'usage entries', answer.usage.length, MAX_VOLUME_USAGE_ENTRIES);
  const usage: CsiVolumeUsage = {};
  for (const u of answer.usage) {
    const amounts = { available: Number(u.available), total: Number(u.total), used: Number(u.used) };
    if (u.unit === 'BYTES') usage.bytes = amounts;
    else if (u.unit === 'INODES') usage.inodes = amounts;
  }
  if (capabilities.has('VOLUME_CONDITION') && answer.volume_condition?.abnormal) usage.abnormal = { message: answer.volume_condition.message };
  return usage;
}
