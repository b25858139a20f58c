/**
 * A pod's volume stats (Go: pkg/kubelet/server/stats volume_stat_calculator.go, and which
 * MetricsProvider each plugin of pkg/volume gives its mounter):
 * - `du`: a walk of the volume's directory for used bytes and inodes, statfs of its file system for
 *   capacity, available bytes and inodes (MetricsDu): emptyDir, whatever its medium.
 * - `duOnce`: the same, measured once per set-up and answered again after (CachedMetrics over
 *   MetricsDu): configMap, secret, downwardAPI, projected, whose content only the kubelet writes.
 * - `statfs`: everything from statfs of the file system (MetricsStatFS): a local PV.
 * - `csi`: the driver's NodeGetVolumeStats, when it has GET_VOLUME_STATS.
 * - `none`: hostPath (MetricsNil): never reported.
 * A volume that could not be measured is left out, as Go leaves it out.
 */
import type { PodMountedVolumes, MountedVolume } from '../volume-manager/mounted-volumes.js';
import type { VolumePluginName } from '../volumes/pod-volumes.js';
import { metaTimeFromNs } from './meta-time.js';
import type { FsStats, VolumeStats } from './summary-types.js';

export type VolumeMetricsSource = 'du' | 'duOnce' | 'statfs' | 'csi' | 'none';

const SOURCES: Record<VolumePluginName, VolumeMetricsSource> = {
  'kubernetes.io/empty-dir': 'du',
  'kubernetes.io/configmap': 'duOnce',
  'kubernetes.io/secret': 'duOnce',
  'kubernetes.io/downward-api': 'duOnce',
  'kubernetes.io/projected': 'duOnce',
  'kubernetes.io/local-volume': 'statfs',
  'kubernetes.io/csi': 'csi',
  'kubernetes.io/host-path': 'none',
};

export function volumeMetricsSource(plugin: VolumePluginName): VolumeMetricsSource {
  return SOURCES[plugin];
}

/**
 * One measurement of a volume. A figure the source did not give is absent and reported as 0, as
 * Go's parsePodVolumeStats does; `abnormal` only when the driver reported a condition.
 */
export interface VolumeReading {
  timeMs: number;
  availableBytes?: bigint;
  capacityBytes?: bigint;
  usedBytes?: bigint;
  inodes?: bigint;
  inodesFree?: bigint;
  inodesUsed?: bigint;
  abnormal?: boolean;
}

/** Go's PodVolumeStats: volumes counted in the pod's ephemeral storage, and the others. */
export interface PodVolumeStats {
  ephemeral: VolumeStats[];
  persistent: VolumeStats[];
}

export function volumeStatsOf(pod: PodMountedVolumes['pod'], volume: MountedVolume, r: VolumeReading): VolumeStats {
  const fs: FsStats = {
    time: metaTimeFromNs(BigInt(Math.trunc(r.timeMs)) * 1_000_000n),
    availableBytes: r.availableBytes ?? 0n,
    capacityBytes: r.capacityBytes ?? 0n,
    usedBytes: r.usedBytes ?? 0n,
    inodesFree: r.inodesFree ?? 0n,
    inodes: r.inodes ?? 0n,
    inodesUsed: r.inodesUsed ?? 0n,
  };
  return {
    ...fs,
    name: volume.name,
    ...(volume.persistent ? { pvcRef: { name: volume.persistent.claimName, namespace: pod.namespace } } : {}),
    ...(r.abnormal !== undefined ? { volumeHealthStats: { abnormal: r.abnormal } } : {}),
  };
}

/** A pod's measured volumes, sorted by name within each list (Go's order is its map's, random). */
export function podVolumeStats(pod: PodMountedVolumes['pod'], measured: ReadonlyArray<{ volume: MountedVolume; reading: VolumeReading }>): PodVolumeStats {
  const sorted = [...measured].sort((a, b) => (a.volume.name < b.volume.name ? -1 : a.volume.name > b.volume.name ? 1 : 0));
  const out: PodVolumeStats = { ephemeral: [], persistent: [] };
  for (const { volume, reading } of sorted) (volume.localEphemeral ? out.ephemeral : out.persistent).push(volumeStatsOf(pod, volume, reading));
  return out;
}
