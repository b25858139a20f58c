/**
 * What `/metrics/probes` serves: the Go kubelet's prober registry (pkg/kubelet/prober), which holds
 * `prober_probe_total` (a counter per probe worker and result), `prober_probe_duration_seconds`
 * (a histogram per probe worker, of attempts that succeeded or could not run: Go does not time
 * failures) and `process_start_time_seconds`. Label values as Go writes them: probe_type
 * `Liveness`/`Readiness`/`Startup`, result `successful`/`failed`/`unknown`.
 *
 * A series exists from its worker's first counted attempt until the worker stops (the pod is
 * removed, or terminating stops its liveness and startup workers): Go deletes them then too.
 */
import type { ProbeOutcome, ProbeType } from '../probe/types.js';
import type { HistogramCounts } from './histogram-counts.js';
import { type MetricFamily } from './prometheus-text.js';
import { byCodeUnits } from '../text/code-unit-order.js';

export type GoProbeType = 'Liveness' | 'Readiness' | 'Startup';
export type GoProbeResult = 'successful' | 'failed' | 'unknown';

/** One probe worker's series. */
export interface ProbeSeries {
  probeType: GoProbeType;
  container: string;
  pod: string;
  namespace: string;
  podUid: string;
  /** Attempts by result; a result never seen has no series, as in Go. */
  results: Readonly<Partial<Record<GoProbeResult, number>>>;
  /** Durations of successful and unknown attempts, on DEFAULT_BUCKETS; null before the first. */
  durations: HistogramCounts | null;
}

export interface ProbeMetricsSnapshot {
  /** When the kubelet process started (epoch seconds). */
  processStartSeconds: number;
  series: readonly ProbeSeries[];
}

const GO_PROBE_TYPE: Record<ProbeType, GoProbeType> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };
const GO_RESULT: Record<ProbeOutcome['result'], GoProbeResult> = { success: 'successful', failure: 'failed', unknown: 'unknown' };
const RESULTS: readonly GoProbeResult[] = ['successful', 'failed', 'unknown'];

export const goProbeType = (t: ProbeType): GoProbeType => GO_PROBE_TYPE[t];
export const goProbeResult = (r: ProbeOutcome['result']): GoProbeResult => GO_RESULT[r];

/** Whether Go times an attempt with this result (it skips failures). */
export const isTimedResult = (r: ProbeOutcome['result']): boolean => r !== 'failure';

export function probeMetricFamilies(s: ProbeMetricsSnapshot): MetricFamily[] {
  const series = [...s.series].sort((a, b) => byCodeUnits(`${a.namespace}/${a.pod}/${a.container}/${a.probeType}`, `${b.namespace}/${b.pod}/${b.container}/${b.probeType}`));
  const workerLabels = (p: ProbeSeries) => ({ probe_type: p.probeType, container: p.container, pod: p.pod, namespace: p.namespace });
  return [
    {
      name: 'process_start_time_seconds', type: 'gauge', help: 'Start time of the process since unix epoch in seconds.',
      samples: [{ value: s.processStartSeconds }],
    },
    {
      name: 'prober_probe_total', type: 'counter', stability: 'BETA', help: 'Cumulative number of a liveness, readiness or startup probe for a container by result.',
      samples: series.flatMap((p) => RESULTS.filter((r) => (p.results[r] ?? 0) > 0).map((r) => ({
        labels: { ...workerLabels(p), result: r, pod_uid: p.podUid },
        value: p.results[r] ?? 0,
      }))),
    },
    {
      // Go's histogram has no pod_uid label (nor result).
      name: 'prober_probe_duration_seconds', type: 'histogram', help: 'Duration in seconds for a probe response.',
      samples: series.flatMap((p) => (p.durations ? [{ labels: workerLabels(p), counts: p.durations }] : [])),
    },
  ];
}
