import { describe, expect, it, vi } from 'vitest';
import { kubeletMetricFamilies, LAG_BUCKETS, type KubeletMetricsSnapshot } from '../../../src/domain/kubelet-server/kubelet-metrics.js';
import { newHistogramCounts, recordMs } from '../../../src/domain/kubelet-server/histogram-counts.js';
import { DEFAULT_BUCKETS, renderExposition } from '../../../src/domain/kubelet-server/prometheus-text.js';

const snapshot: KubeletMetricsSnapshot = {
  runningPods: 2,
  runningContainers: { running: 3, exited: 1 },
  plegLastRelistAtMs: 1_700_000_000_500,
  plegRelistDurationsMs: [4, 20],
  podStartDurationsMs: [1500],
  podWorkerDurationsMs: { create: [30], sync: [5, 6] },
  runtimeOperations: [{ op: 'list_containers', count: 10, errors: 0 }, { op: 'create_container', count: 4, errors: 1 }],
  startedPods: 2,
  nodeStartup: [{ phase: 'total', durationMs: 2500 }, { phase: 'preKubelet', durationMs: 100 }],
  cpuPinning: { requests: 3, errors: 1 },
};

describe('kubeletMetricFamilies', () => {
  const text = renderExposition(kubeletMetricFamilies(snapshot));
  const lines = text.split('\n');

  it('uses the Go kubelet names and labels', () => {
    expect(lines).toContain('kubelet_running_pods 2');
    expect(lines).toContain('kubelet_cpu_manager_pinning_requests_total 3');
    expect(lines).toContain('kubelet_cpu_manager_pinning_errors_total 1');
    expect(lines).toContain('kubelet_running_containers{container_state="running"} 3');
    expect(lines).toContain('kubelet_running_containers{container_state="exited"} 1');
    expect(lines).toContain('kubelet_pleg_last_seen_seconds 1700000000.5');
    expect(lines).toContain('kubelet_runtime_operations_total{operation_type="create_container"} 4');
    expect(lines).toContain('kubelet_runtime_operations_errors_total{operation_type="create_container"} 1');
    expect(lines).not.toContain('kubelet_runtime_operations_errors_total{operation_type="list_containers"} 0');
    expect(lines).toContain('kubelet_started_pods_total 2');
    expect(lines).toContain('kubelet_node_startup_duration_seconds 2.5');
    expect(lines).toContain('kubelet_node_startup_pre_kubelet_duration_seconds 0.1');
    expect(lines).toContain('# TYPE kubelet_pleg_relist_duration_seconds histogram');
  });

  it('orders the runtime operations by code units, without ICU\'s collation', () => {
    const compare = vi.spyOn(String.prototype, 'localeCompare');
    try {
      const ops = [{ op: 'list_b', count: 1, errors: 0 }, { op: 'list_B', count: 1, errors: 0 }];
      const out = renderExposition(kubeletMetricFamilies({ ...snapshot, runtimeOperations: ops }));
      // A collation puts `list_b` first; code units put `B` (0x42) before `b` (0x62).
      expect(out.indexOf('operation_type="list_B"')).toBeLessThan(out.indexOf('operation_type="list_b"'));
      expect(compare).not.toHaveBeenCalled();
    } finally {
      compare.mockRestore();
    }
  });

  it('converts milliseconds to seconds in histograms, with Go buckets', () => {
    expect(lines).toContain('kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 1');
    expect(lines).toContain('kubelet_pleg_relist_duration_seconds_bucket{le="0.025"} 2');
    expect(lines).toContain('kubelet_pleg_relist_duration_seconds_sum 0.024');
    expect(lines).toContain('kubelet_pod_start_duration_seconds_bucket{le="1"} 0');
    expect(lines).toContain('kubelet_pod_start_duration_seconds_bucket{le="2"} 1');
    expect(lines).toContain('kubelet_pod_start_duration_seconds_bucket{le="3600"} 1');
    expect(lines).toContain('kubelet_pod_worker_duration_seconds_count{operation_type="create"} 1');
    expect(lines).toContain('kubelet_pod_worker_duration_seconds_count{operation_type="sync"} 2');
  });

  it('exports the PLEG\'s discarded events as Go\'s counter kubelet_pleg_discard_events, 0 when none', () => {
    expect(lines).toContain('# TYPE kubelet_pleg_discard_events counter');
    expect(lines).toContain('kubelet_pleg_discard_events 0');
    expect(renderExposition(kubeletMetricFamilies({ ...snapshot, plegDiscardedEvents: 200 })).split('\n')).toContain('kubelet_pleg_discard_events 200');
  });

  it('labels a plain list of worker durations as sync and leaves out the PLEG gauge before any relist', () => {
    const t = renderExposition(kubeletMetricFamilies({ ...snapshot, podWorkerDurationsMs: [1, 2, 3], plegLastRelistAtMs: null }));
    expect(t).toContain('kubelet_pod_worker_duration_seconds_count{operation_type="sync"} 3');
    expect(t).not.toContain('kubelet_pleg_last_seen_seconds');
  });

  it('takes histogram counts kept by the caller, per operation type too', () => {
    const relist = recordMs(recordMs(newHistogramCounts(DEFAULT_BUCKETS), 4), 20);
    const sync = recordMs(newHistogramCounts(DEFAULT_BUCKETS), 300);
    const t = renderExposition(kubeletMetricFamilies({ ...snapshot, plegRelistDurationsMs: relist, podWorkerDurationsMs: { sync } })).split('\n');
    expect(t).toContain('kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 1');
    expect(t).toContain('kubelet_pleg_relist_duration_seconds_count 2');
    expect(t).toContain('kubelet_pod_worker_duration_seconds_bucket{operation_type="sync",le="0.25"} 0');
    expect(t).toContain('kubelet_pod_worker_duration_seconds_bucket{operation_type="sync",le="0.5"} 1');
  });
});

describe('kubeletMetricFamilies: kubelet-ts\'s own lag figures', () => {
  it('writes the syncLoop lag and the event-loop delay as histograms with their last-minute maxima', () => {
    const t = renderExposition(kubeletMetricFamilies({
      ...snapshot,
      syncLoopLag: { durationsMs: [0.5, 3, 120], recentMaxMs: 120 },
      eventLoopDelay: { durationsMs: recordMs(newHistogramCounts(LAG_BUCKETS), 7), recentMaxMs: 7 },
    })).split('\n');
    expect(t).toContain('# TYPE kubelet_ts_sync_loop_iteration_lag_seconds histogram');
    expect(t).toContain('kubelet_ts_sync_loop_iteration_lag_seconds_bucket{le="0.001"} 1');
    expect(t).toContain('kubelet_ts_sync_loop_iteration_lag_seconds_bucket{le="0.1"} 2');
    expect(t).toContain('kubelet_ts_sync_loop_iteration_lag_seconds_count 3');
    expect(t).toContain('kubelet_ts_sync_loop_iteration_lag_max_seconds 0.12');
    expect(t).toContain('kubelet_ts_event_loop_delay_seconds_bucket{le="0.005"} 0');
    expect(t).toContain('kubelet_ts_event_loop_delay_seconds_bucket{le="0.01"} 1');
    expect(t).toContain('kubelet_ts_event_loop_delay_max_seconds 0.007');
  });

  it('leaves them out when they are not measured', () => {
    expect(renderExposition(kubeletMetricFamilies(snapshot))).not.toContain('kubelet_ts_');
  });
});

describe('kubeletMetricFamilies: the pod resources API', () => {
  it("writes Go's counters by server_api_version, and none still at zero", () => {
    const text = renderExposition(kubeletMetricFamilies({ ...snapshot, podResourcesRequests: { total: 3, list: 2, getAllocatable: 0, get: 1, getErrors: 1 } }));
    const lines = text.split('\n');
    expect(lines).toContain('# TYPE kubelet_pod_resources_endpoint_requests_total counter');
    expect(lines).toContain('kubelet_pod_resources_endpoint_requests_total{server_api_version="v1"} 3');
    expect(lines).toContain('kubelet_pod_resources_endpoint_requests_list{server_api_version="v1"} 2');
    expect(lines).toContain('kubelet_pod_resources_endpoint_requests_get{server_api_version="v1"} 1');
    expect(lines).toContain('kubelet_pod_resources_endpoint_errors_get{server_api_version="v1"} 1');
    expect(text).not.toContain('kubelet_pod_resources_endpoint_requests_get_allocatable');
  });

  it('writes nothing of it before the first call', () => {
    const text = renderExposition(kubeletMetricFamilies({ ...snapshot, podResourcesRequests: { total: 0, list: 0, getAllocatable: 0, get: 0, getErrors: 0 } }));
    expect(text).not.toContain('kubelet_pod_resources_');
  });
});
