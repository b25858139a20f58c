/**
 * The kubelet's own metrics (pkg/kubelet/metrics) from a snapshot of its state, with Go's names,
 * labels and buckets. Help texts are ours, shorter than Go's (the volume stats' are Go's). The prober's metrics are served
 * apart, on /metrics/probes (probe-metrics.ts), as in Go. What Go has and we do not yet: cAdvisor
 * and resource metrics, runtime operation durations, evictions, the per-pod-start SLI
 * histograms, and the node_name gauge.
 *
 * Ours, not Go's (prefixed kubelet_ts_): the syncLoop's iteration lag (how late its timed inputs
 * ran after they were due) and the event loop's delay, each as a histogram and as the largest value
 * of the last minute. A Go kubelet's goroutines do not queue behind each other, so Go has no such
 * figure; a Node kubelet's one event loop does, and these show when it does.
 */
import { countsFromMs, type HistogramCounts } from './histogram-counts.js';
import { DEFAULT_BUCKETS, type MetricFamily } from './prometheus-text.js';
import { byCodeUnits } from '../text/code-unit-order.js';
import type { VolumeStats } from '../stats/summary-types.js';
import { volumeStatsMetricFamilies } from './volume-stats-metrics.js';
import { podResourcesMetricFamilies, type PodResourcesRequests } from '../pod-resources/request-metrics.js';

export type NodeStartupPhase = 'total' | 'preKubelet' | 'preRegistration' | 'registration' | 'postRegistration';

/**
 * Durations for a histogram: a list of milliseconds (fine for tests and short-lived lists), or
 * counts kept with `recordMs` (what a long-running kubelet should hold: bounded memory). Counts must
 * use the metric's buckets: DEFAULT_BUCKETS, or POD_START_BUCKETS for pod start durations.
 */
export type Durations = readonly number[] | HistogramCounts;

export interface KubeletMetricsSnapshot {
  /** Pods with a running sandbox. */
  runningPods: number;
  /** Containers by CRI state: `running`, `exited`, `created`, `unknown`. */
  runningContainers: Readonly<Record<string, number>>;
  /** When the PLEG last relisted (epoch ms), null before the first relist. */
  plegLastRelistAtMs: number | null;
  plegRelistDurationsMs: Durations;
  /** PLEG events dropped beyond its channel capacity, since start (absent: 0). */
  plegDiscardedEvents?: number;
  podStartDurationsMs: Durations;
  /** Pod sync durations by operation_type (create, update, sync); a bare Durations counts as "sync". */
  podWorkerDurationsMs: Durations | Readonly<Record<string, Durations>>;
  runtimeOperations: ReadonlyArray<{ op: string; count: number; errors: number }>;
  startedPods: number;
  nodeStartup: ReadonlyArray<{ phase: NodeStartupPhase; durationMs: number }>;
  /** How late the syncLoop's timed inputs were handled (LAG_BUCKETS); absent when not measured. */
  syncLoopLag?: LagFigures;
  /** The event loop's delay (LAG_BUCKETS); absent when not measured. */
  eventLoopDelay?: LagFigures;
  /** Each pod's latest volume stats (volume-stats-metrics.ts reports the claims'); absent: none. */
  podVolumeStats?: ReadonlyArray<readonly VolumeStats[]>;
  /** Calls to the pod resources API, by method; absent: none counted. */
  podResourcesRequests?: PodResourcesRequests;
  /** The static CPU manager's allocations of exclusive CPUs and their failures since start; absent: 0. */
  cpuPinning?: { requests: number; errors: number };
  /** The device plugins: Register calls and Allocate durations, by resource name; absent: none. */
  devicePlugins?: { registrations: Readonly<Record<string, number>>; allocDurations: Readonly<Record<string, HistogramCounts>> };
}

export interface LagFigures {
  durationsMs: Durations;
  /** The largest of the last minute. */
  recentMaxMs: number;
}

/** Buckets for lags and delays: from a millisecond (an idle loop) to 10 s (a loop stuck). */
export const LAG_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Go's podStartupDurationBuckets. */
export const POD_START_BUCKETS: readonly number[] = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

const STARTUP_GAUGES: Record<NodeStartupPhase, string> = {
  total: 'kubelet_node_startup_duration_seconds',
  preKubelet: 'kubelet_node_startup_pre_kubelet_duration_seconds',
  preRegistration: 'kubelet_node_startup_pre_registration_duration_seconds',
  registration: 'kubelet_node_startup_registration_duration_seconds',
  postRegistration: 'kubelet_node_startup_post_registration_duration_seconds',
};

const isDurations = (d: unknown): d is Durations => Array.isArray(d) || (typeof d === 'object' && d !== null && 'buckets' in d && 'counts' in d);
const counts = (buckets: readonly number[], d: Durations): HistogramCounts => (Array.isArray(d) ? countsFromMs(buckets, d) : (d as HistogramCounts));
const byName = <T extends { [k: string]: unknown }>(a: T, b: T, key: keyof T) => byCodeUnits(String(a[key]), String(b[key]));

export function kubeletMetricFamilies(m: KubeletMetricsSnapshot): MetricFamily[] {
  const workers: Readonly<Record<string, Durations>> = isDurations(m.podWorkerDurationsMs) ? { sync: m.podWorkerDurationsMs } : m.podWorkerDurationsMs;
  const ops = [...m.runtimeOperations].sort((a, b) => byName(a, b, 'op'));
  const families: MetricFamily[] = [
    {
      name: 'kubelet_cpu_manager_pinning_errors_total', type: 'counter', help: 'CPU allocations for containers asking for exclusive CPUs that failed.',
      samples: [{ value: m.cpuPinning?.errors ?? 0 }],
    },
    {
      name: 'kubelet_cpu_manager_pinning_requests_total', type: 'counter', help: 'CPU allocations for containers asking for exclusive CPUs.',
      samples: [{ value: m.cpuPinning?.requests ?? 0 }],
    },
    {
      name: 'kubelet_node_startup_duration_seconds', type: 'gauge', help: 'Node start-up time in seconds, in total.',
      samples: m.nodeStartup.filter((p) => p.phase === 'total').map((p) => ({ value: p.durationMs / 1000 })),
    },
    ...(['preKubelet', 'preRegistration', 'registration', 'postRegistration'] as const).map((phase): MetricFamily => ({
      name: STARTUP_GAUGES[phase], type: 'gauge', help: `Node start-up time in seconds, ${phase} phase.`,
      samples: m.nodeStartup.filter((p) => p.phase === phase).map((p) => ({ value: p.durationMs / 1000 })),
    })),
    {
      name: 'kubelet_device_plugin_alloc_duration_seconds', type: 'histogram', help: 'Seconds a device plugin took to answer Allocate, by resource.',
      samples: Object.keys(m.devicePlugins?.allocDurations ?? {}).sort(byCodeUnits).map((r) => ({ labels: { resource_name: r }, counts: m.devicePlugins!.allocDurations[r]! })),
    },
    {
      name: 'kubelet_device_plugin_registration_total', type: 'counter', help: 'Register calls from device plugins, by resource.',
      samples: Object.keys(m.devicePlugins?.registrations ?? {}).sort(byCodeUnits).map((r) => ({ labels: { resource_name: r }, value: m.devicePlugins!.registrations[r]! })),
    },
    {
      name: 'kubelet_pleg_discard_events', type: 'counter', help: 'PLEG events discarded because a relist had more than the channel capacity.',
      samples: [{ value: m.plegDiscardedEvents ?? 0 }],
    },
    {
      name: 'kubelet_pleg_last_seen_seconds', type: 'gauge', help: 'Unix time in seconds when the PLEG was last active.',
      samples: m.plegLastRelistAtMs === null ? [] : [{ value: m.plegLastRelistAtMs / 1000 }],
    },
    {
      name: 'kubelet_pleg_relist_duration_seconds', type: 'histogram', help: 'Seconds taken by one PLEG relist.',
      samples: [{ counts: counts(DEFAULT_BUCKETS, m.plegRelistDurationsMs) }],
    },
    {
      name: 'kubelet_pod_start_duration_seconds', type: 'histogram', help: 'Seconds from the kubelet first seeing a pod to the pod running.',
      samples: [{ counts: counts(POD_START_BUCKETS, m.podStartDurationsMs) }],
    },
    {
      name: 'kubelet_pod_worker_duration_seconds', type: 'histogram', help: 'Seconds to sync one pod, by operation type.',
      samples: Object.keys(workers).sort().map((op) => ({ labels: { operation_type: op }, counts: counts(DEFAULT_BUCKETS, workers[op] ?? []) })),
    },
    {
      name: 'kubelet_running_containers', type: 'gauge', help: 'Containers known to the runtime, by state.',
      samples: Object.keys(m.runningContainers).sort().map((state) => ({ labels: { container_state: state }, value: m.runningContainers[state] ?? 0 })),
    },
    { name: 'kubelet_running_pods', type: 'gauge', help: 'Pods with a running pod sandbox.', samples: [{ value: m.runningPods }] },
    {
      name: 'kubelet_runtime_operations_errors_total', type: 'counter', help: 'Runtime operations that failed, by operation type.',
      samples: ops.filter((o) => o.errors > 0).map((o) => ({ labels: { operation_type: o.op }, value: o.errors })),
    },
    {
      name: 'kubelet_runtime_operations_total', type: 'counter', help: 'Runtime operations, by operation type.',
      samples: ops.map((o) => ({ labels: { operation_type: o.op }, value: o.count })),
    },
    { name: 'kubelet_started_pods_total', type: 'counter', help: 'Pods started (sandboxes created).', samples: [{ value: m.startedPods }] },
    ...lagFamilies('kubelet_ts_sync_loop_iteration_lag_seconds', 'Seconds from when a timed input of the syncLoop (PLEG relist, pod resync or back-off, probe period) was due to when it was handled', m.syncLoopLag),
    ...lagFamilies('kubelet_ts_event_loop_delay_seconds', 'Seconds the event loop was late, sampled every second', m.eventLoopDelay),
    ...volumeStatsMetricFamilies(m.podVolumeStats ?? []),
    ...(m.podResourcesRequests ? podResourcesMetricFamilies(m.podResourcesRequests) : []),
  ];
  return families;
}

function lagFamilies(name: string, help: string, figures: LagFigures | undefined): MetricFamily[] {
  if (!figures) return [];
  const maxName = name.replace(/_seconds$/, '_max_seconds');
  return [
    { name, type: 'histogram', help: `${help}.`, samples: [{ counts: counts(LAG_BUCKETS, figures.durationsMs) }] },
    { name: maxName, type: 'gauge', help: `${help}: the largest of the last minute.`, samples: [{ value: figures.recentMaxMs / 1000 }] },
  ];
}
