import { describe, expect, it, vi } from 'vitest';
import { newHistogramCounts, recordMs } from '../../../src/domain/kubelet-server/histogram-counts.js';
import { probeMetricFamilies, type ProbeSeries } from '../../../src/domain/kubelet-server/probe-metrics.js';
import { DEFAULT_BUCKETS, renderExposition } from '../../../src/domain/kubelet-server/prometheus-text.js';

const readiness: ProbeSeries = {
  probeType: 'Readiness', container: 'app', pod: 'web', namespace: 'prod', podUid: 'uid-1',
  results: { successful: 3, failed: 1 },
  durations: recordMs(recordMs(newHistogramCounts(DEFAULT_BUCKETS), 20), 300),
};
const liveness: ProbeSeries = { ...readiness, probeType: 'Liveness', results: { unknown: 2 }, durations: null };

describe('probeMetricFamilies', () => {
  const lines = renderExposition(probeMetricFamilies({ processStartSeconds: 1_700_000_000.25, series: [readiness, liveness] })).split('\n');

  it('counts attempts per worker and result with the Go kubelet\'s labels', () => {
    expect(lines).toContain('prober_probe_total{container="app",namespace="prod",pod="web",pod_uid="uid-1",probe_type="Readiness",result="successful"} 3');
    expect(lines).toContain('prober_probe_total{container="app",namespace="prod",pod="web",pod_uid="uid-1",probe_type="Readiness",result="failed"} 1');
    expect(lines).toContain('prober_probe_total{container="app",namespace="prod",pod="web",pod_uid="uid-1",probe_type="Liveness",result="unknown"} 2');
  });

  it('prints no series for a result never seen, as Go creates a series at its first increment', () => {
    expect(lines.filter((l) => l.startsWith('prober_probe_total{') && l.includes('probe_type="Readiness"') && l.includes('result="unknown"'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('prober_probe_total{'))).toHaveLength(3);
  });

  it('keeps durations per worker without pod_uid or result, and none for a worker never timed', () => {
    expect(lines).toContain('prober_probe_duration_seconds_bucket{container="app",namespace="prod",pod="web",probe_type="Readiness",le="0.025"} 1');
    expect(lines).toContain('prober_probe_duration_seconds_bucket{container="app",namespace="prod",pod="web",probe_type="Readiness",le="0.5"} 2');
    expect(lines).toContain('prober_probe_duration_seconds_count{container="app",namespace="prod",pod="web",probe_type="Readiness"} 2');
    expect(lines.some((l) => l.startsWith('prober_probe_duration_seconds') && l.includes('Liveness'))).toBe(false);
  });

  it('serves the process start time and the stability levels of Go\'s registry', () => {
    expect(lines).toContain('process_start_time_seconds 1700000000.25');
    expect(lines).toContain('# HELP prober_probe_total [BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.');
    expect(lines).toContain('# TYPE prober_probe_duration_seconds histogram');
  });

  it('orders the series by code units, as Go compares label values, without ICU\'s collation', () => {
    const compare = vi.spyOn(String.prototype, 'localeCompare');
    try {
      const text = renderExposition(probeMetricFamilies({ processStartSeconds: 5, series: [readiness, { ...readiness, pod: 'Web' }] }));
      // A collation puts `web` first; code units put `W` (0x57) before `w` (0x77).
      expect(text.indexOf('pod="Web"')).toBeLessThan(text.indexOf('pod="web"'));
      expect(compare).not.toHaveBeenCalled();
    } finally {
      compare.mockRestore();
    }
  });

  it('has only the start time when no probe has run', () => {
    const text = renderExposition(probeMetricFamilies({ processStartSeconds: 5, series: [] }));
    expect(text).toBe('# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 5\n');
  });
});
