import { describe, expect, it } from 'vitest';
import { kubeletMetricFamilies, type KubeletMetricsSnapshot } from '../../../src/domain/kubelet-server/kubelet-metrics.js';
import { renderExposition } from '../../../src/domain/kubelet-server/prometheus-text.js';
import type { VolumeStats } from '../../../src/domain/stats/summary-types.js';
import { strictFamilies } from '../../support/strict-prometheus-text.js';

const base: KubeletMetricsSnapshot = {
  runningPods: 0, runningContainers: {}, plegLastRelistAtMs: null, plegRelistDurationsMs: [], podStartDurationsMs: [],
  podWorkerDurationsMs: [], runtimeOperations: [], startedPods: 0, nodeStartup: [],
};
const fs = { time: '2026-11-27T00:00:00Z', availableBytes: 700n, capacityBytes: 1000n, usedBytes: 300n, inodesFree: 90n, inodes: 100n, inodesUsed: 10n };
const claim = (name: string, namespace: string, over: Partial<VolumeStats> = {}): VolumeStats => ({ ...fs, name: `vol-${name}`, pvcRef: { name, namespace }, ...over });

describe('the kubelet_volume_stats_* families', () => {
  const text = renderExposition(kubeletMetricFamilies({
    ...base,
    podVolumeStats: [
      [{ ...fs, name: 'scratch' }, claim('data', 'shop', { volumeHealthStats: { abnormal: true } })],
      // Another pod with the same claim: reported once, as the first pod's.
      [claim('data', 'shop', { usedBytes: 1n }), claim('logs', 'ops', { usedBytes: 2n ** 40n })],
    ],
  }));
  const families = strictFamilies(text);

  it('reports each claim once, labelled by namespace and claim, with Go\'s help texts at ALPHA', () => {
    const used = families.get('kubelet_volume_stats_used_bytes');
    expect(used?.type).toBe('gauge');
    expect(used?.help).toBe('[ALPHA] Number of used bytes in the volume');
    expect(used?.samples.map((s) => [s.labels, s.value])).toEqual([
      [{ namespace: 'shop', persistentvolumeclaim: 'data' }, 300],
      [{ namespace: 'ops', persistentvolumeclaim: 'logs' }, 2 ** 40],
    ]);
    const figures = Object.fromEntries(['capacity_bytes', 'available_bytes', 'inodes', 'inodes_free', 'inodes_used'].map((f) => [f, families.get(`kubelet_volume_stats_${f}`)?.samples[0]?.value]));
    expect(figures).toEqual({ capacity_bytes: 1000, available_bytes: 700, inodes: 100, inodes_free: 90, inodes_used: 10 });
    expect(families.get('kubelet_volume_stats_inodes')?.help).toBe('[ALPHA] Maximum number of inodes in the volume');
  });

  it('leaves out volumes without a claim', () => {
    expect(text).not.toContain('scratch');
  });

  it('reports the health status only for a volume with a health figure', () => {
    const health = families.get('kubelet_volume_stats_health_status_abnormal');
    expect(health?.help).toMatch(/^\[ALPHA\] Abnormal volume health status\. The count is either 1 or 0\./);
    expect(health?.samples.map((s) => [s.labels, s.value])).toEqual([[{ namespace: 'shop', persistentvolumeclaim: 'data' }, 1]]);
  });

  it('prints no volume family when no claim was measured', () => {
    expect(renderExposition(kubeletMetricFamilies({ ...base, podVolumeStats: [[{ ...fs, name: 'scratch' }]] }))).not.toContain('kubelet_volume_stats');
  });
});
