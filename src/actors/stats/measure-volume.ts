/**
 * One volume measured as its plugin's metrics provider would (see domain/stats/volume-stats.ts for
 * which plugin uses which): the walk and statfs through the host stats port, a CSI volume through
 * its driver's NodeGetVolumeStats. Null when the volume has no metrics or they could not be read
 * (gone, no access, a driver without GET_VOLUME_STATS): Go leaves such a volume out.
 */
import type { MountedVolume } from '../../domain/volume-manager/mounted-volumes.js';
import { volumeMetricsSource, type VolumeReading } from '../../domain/stats/volume-stats.js';
import type { CsiVolumePlugin, CsiVolumeUsage } from '../../ports/csi-volumes.js';
import type { HostStats } from '../../ports/stats.js';

export interface VolumeMeters {
  host: Pick<HostStats, 'filesystem' | 'directoryUsage'>;
  /** The CSI volume plugin, once the volume plugins exist; absent: CSI volumes are not measured. */
  csi?: () => CsiVolumePlugin | undefined;
  /** The CSIVolumeHealth feature gate: a driver's volume condition is reported only with it on. */
  csiVolumeHealth: boolean;
  nowMs: () => number;
}

export async function measureVolume(podUid: string, volume: MountedVolume, m: VolumeMeters): Promise<VolumeReading | null> {
  const timeMs = m.nowMs();
  switch (volumeMetricsSource(volume.plugin)) {
    case 'du':
    case 'duOnce': {
      const usage = await m.host.directoryUsage(volume.hostPath);
      if (!usage) return null;
      const fs = await m.host.filesystem(volume.hostPath);
      if (!fs) return null;
      return {
        timeMs, usedBytes: usage.usedBytes, inodesUsed: usage.inodesUsed,
        availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes, inodes: fs.inodes, inodesFree: fs.inodesFree,
      };
    }
    case 'statfs': {
      const fs = await m.host.filesystem(volume.hostPath);
      if (!fs) return null;
      return {
        timeMs, usedBytes: fs.usedBytes, inodesUsed: fs.inodes - fs.inodesFree,
        availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes, inodes: fs.inodes, inodesFree: fs.inodesFree,
      };
    }
    case 'csi': {
      const csi = m.csi?.();
      if (!csi) return null;
      // A claim's PV is published under its PV's name, an inline volume under the pod's name for it.
      const usage = await csi.volumeStats(podUid, volume.persistent?.pvName ?? volume.name);
      return usage ? csiReading(timeMs, usage, m.csiVolumeHealth) : null;
    }
    case 'none':
      return null;
  }
}

/** NodeGetVolumeStats' usage as Go's csi metrics provider maps it: BYTES and INODES, each available, total, used. */
function csiReading(timeMs: number, u: CsiVolumeUsage, volumeHealth: boolean): VolumeReading {
  return {
    timeMs,
    ...(u.bytes ? { availableBytes: big(u.bytes.available), capacityBytes: big(u.bytes.total), usedBytes: big(u.bytes.used) } : {}),
    ...(u.inodes ? { inodesFree: big(u.inodes.available), inodes: big(u.inodes.total), inodesUsed: big(u.inodes.used) } : {}),
    // The port names only an abnormal condition: with the gate on, no condition reads as healthy.
    ...(volumeHealth ? { abnormal: u.abnormal !== undefined } : {}),
  };
}

/** A driver's int64 as an unsigned figure; a negative one (a driver's bug) counts as 0. */
const big = (n: number): bigint => (Number.isFinite(n) && n > 0 ? BigInt(Math.trunc(n)) : 0n);
