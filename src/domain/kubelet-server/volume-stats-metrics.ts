/**
 * The kubelet's volume stats on /metrics (Go: pkg/kubelet/metrics/collectors/volume_stats.go, 1.26):
 * one gauge per figure for each claim a pod's volume stats name, labelled by `namespace` and
 * `persistentvolumeclaim`; volumes without a claim are not reported, and a claim two pods use is
 * reported once (the first pod's). `kubelet_volume_stats_health_status_abnormal` only for volumes
 * with a health figure (a CSI driver's condition, CSIVolumeHealth on). Go's help texts; all ALPHA.
 */
import type { VolumeStats } from '../stats/summary-types.js';
import type { MetricFamily, ScalarSample } from './prometheus-text.js';

const FIGURES = [
  ['kubelet_volume_stats_capacity_bytes', 'Capacity in bytes of the volume', 'capacityBytes'],
  ['kubelet_volume_stats_available_bytes', 'Number of available bytes in the volume', 'availableBytes'],
  ['kubelet_volume_stats_used_bytes', 'Number of used bytes in the volume', 'usedBytes'],
  ['kubelet_volume_stats_inodes', 'Maximum number of inodes in the volume', 'inodes'],
  ['kubelet_volume_stats_inodes_free', 'Number of free inodes in the volume', 'inodesFree'],
  ['kubelet_volume_stats_inodes_used', 'Number of used inodes in the volume', 'inodesUsed'],
] as const;

const HEALTH_HELP = 'Abnormal volume health status. The count is either 1 or 0. 1 indicates the volume is unhealthy, 0 indicates volume is healthy';

/** The families for every pod's volume stats, in the pods' order. */
export function volumeStatsMetricFamilies(podsVolumes: ReadonlyArray<readonly VolumeStats[]>): MetricFamily[] {
  const seen = new Set<string>();
  const claims: VolumeStats[] = [];
  for (const volumes of podsVolumes) {
    for (const v of volumes) {
      if (!v.pvcRef) continue;
      const key = `${v.pvcRef.namespace}/${v.pvcRef.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      claims.push(v);
    }
  }
  const labels = (v: VolumeStats) => ({ namespace: v.pvcRef!.namespace, persistentvolumeclaim: v.pvcRef!.name });
  const families: MetricFamily[] = FIGURES.map(([name, help, field]) => ({
    name, help, type: 'gauge',
    samples: claims.map((v): ScalarSample => ({ labels: labels(v), value: Number(v[field] ?? 0n) })),
  }));
  families.push({
    name: 'kubelet_volume_stats_health_status_abnormal', help: HEALTH_HELP, type: 'gauge',
    samples: claims.filter((v) => v.volumeHealthStats).map((v) => ({ labels: labels(v), value: v.volumeHealthStats!.abnormal ? 1 : 0 })),
  });
  return families;
}
