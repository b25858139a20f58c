/**
 * `/metrics/resource`: the Go kubelet's resource metrics (pkg/kubelet/metrics/collectors/
 * resource_metrics.go, as of 1.29, the last release serving both scrape error gauges), the metrics
 * server's source. Built from the CPU-and-memory summary that /stats/summary?only_cpu_and_memory
 * answers, as Go builds them from GetCPUAndMemoryStats.
 *
 * As in Go: cumulative CPU in core-seconds and working sets carry the stats' own timestamps;
 * container_start_time_seconds carries none; a value the stats lack is left out, not zeroed; a
 * failed read answers only the scrape error gauges, set to 1. Unlike Go's, our stats times are
 * whole seconds (the summary holds metav1.Time strings), so the timestamps are too.
 *
 * Not served: the container and pod swap series (container_swap_usage_bytes,
 * container_swap_limit_bytes, pod_swap_usage_bytes): kubelet-ts measures no per-container swap.
 */
import { epochMsOfMetaTime } from '../stats/meta-time.js';
import type { ContainerStats, NodeStats, PodStats, Summary } from '../stats/summary-types.js';
import type { Labels, MetricFamily, ScalarSample } from './prometheus-text.js';
import { cpuSecondsSamples, memorySamples, startTimeSamples } from './stats-samples.js';

/** Go stamps the node's swap with the memory stats' time; the summary has swap only when the node has some. */
function nodeSwapSamples(node: NodeStats): ScalarSample[] {
  const swap = node.swap;
  if (swap?.swapUsageBytes === undefined) return [];
  return [{ value: Number(swap.swapUsageBytes), timestampMs: epochMsOfMetaTime(node.memory?.time ?? swap.time) }];
}

const podLabels = (p: PodStats): Labels => ({ pod: p.podRef.name, namespace: p.podRef.namespace });
const containerLabels = (p: PodStats, c: ContainerStats): Labels => ({ container: c.name, ...podLabels(p) });
const perContainer = (pods: readonly PodStats[], sample: (p: PodStats, c: ContainerStats) => ScalarSample[]) =>
  pods.flatMap((p) => p.containers.flatMap((c) => sample(p, c)));

const SCRAPE_ERROR_HELP = '1 if there was an error while getting container metrics, 0 otherwise';

/** Both scrape error gauges: Go 1.29 deprecated `scrape_error` for `resource_scrape_error` and serves both. */
function scrapeErrorFamilies(failed: boolean): MetricFamily[] {
  const samples = [{ value: failed ? 1 : 0 }];
  return [
    { name: 'scrape_error', help: SCRAPE_ERROR_HELP, stability: 'ALPHA', deprecatedVersion: '1.29.0', type: 'gauge', samples },
    { name: 'resource_scrape_error', help: SCRAPE_ERROR_HELP, stability: 'STABLE', type: 'gauge', samples },
  ];
}

/** The families for one scrape; `summary` null when reading the stats failed. */
export function resourceMetricFamilies(summary: Summary | null): MetricFamily[] {
  if (!summary) return scrapeErrorFamilies(true);
  const { node, pods } = summary;
  return [
    { name: 'node_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the node in core-seconds', stability: 'STABLE', type: 'counter', samples: cpuSecondsSamples(node.cpu, {}) },
    {
      name: 'node_swap_usage_bytes', help: 'Current swap usage of the node in bytes. Reported only on non-windows systems', stability: 'ALPHA', type: 'gauge',
      samples: nodeSwapSamples(node),
    },
    { name: 'node_memory_working_set_bytes', help: 'Current working set of the node in bytes', stability: 'STABLE', type: 'gauge', samples: memorySamples(node.memory, 'workingSetBytes', {}) },
    {
      name: 'container_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the container in core-seconds', stability: 'STABLE', type: 'counter',
      samples: perContainer(pods, (p, c) => cpuSecondsSamples(c.cpu, containerLabels(p, c))),
    },
    {
      name: 'container_memory_working_set_bytes', help: 'Current working set of the container in bytes', stability: 'STABLE', type: 'gauge',
      samples: perContainer(pods, (p, c) => memorySamples(c.memory, 'workingSetBytes', containerLabels(p, c))),
    },
    {
      name: 'container_start_time_seconds', help: 'Start time of the container since unix epoch in seconds', stability: 'STABLE', type: 'gauge',
      samples: perContainer(pods, (p, c) => startTimeSamples(c.startTime, containerLabels(p, c))),
    },
    { name: 'pod_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the pod in core-seconds', stability: 'STABLE', type: 'counter', samples: pods.flatMap((p) => cpuSecondsSamples(p.cpu, podLabels(p))) },
    { name: 'pod_memory_working_set_bytes', help: 'Current working set of the pod in bytes', stability: 'STABLE', type: 'gauge', samples: pods.flatMap((p) => memorySamples(p.memory, 'workingSetBytes', podLabels(p))) },
    ...scrapeErrorFamilies(false),
  ];
}
